// A model's answer streamed to a narrow terminal wraps at word boundaries, however the provider cuts its chunks.
import { expect, it } from 'vitest';
import { createTextRenderer } from '../../src/cli/render-text.js';
import { createStreamWrap } from '../../src/cli/word-wrap.js';

const answer = 'The gateway keeps every provider key on the host, so nothing inside the sandbox can read one, and each call is charged to the session budget before it leaves.\n  An indented line stays indented.\nDone.';

function narrowTerminal(columns: number) {
  let screen = '';
  const stream = { isTTY: true, columns, write: (text: string) => ((screen += text), true) } as unknown as NodeJS.WritableStream & { isTTY: boolean };
  return { render: createTextRenderer({ out: stream, err: stream, color: false }), screen: () => screen };
}

it.each([1, 3, 7, 1000])('cuts no word and passes no line over the width, in chunks of %i characters', (size) => {
  const { render, screen } = narrowTerminal(41);
  for (let at = 0; at < answer.length; at += size) render({ type: 'output.model-text', text: answer.slice(at, at + size) });
  render({ type: 'output.message', level: 'info', text: 'Task 1 done.' });
  const lines = screen().split('\n');
  expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(40);
  // The same words in the same order, none cut in two.
  expect(screen().split(/\s+/).filter(Boolean)).toEqual(`${answer} Task 1 done.`.split(/\s+/).filter(Boolean));
  expect(lines).toContain('  An indented line stays indented.');
  expect(lines.at(-2)).toBe('Task 1 done.');
});

it('writes the word it held back when the stream pauses for something else', () => {
  const wrap = createStreamWrap(40);
  expect(wrap.feed('Reading the fil')).toBe('Reading the');
  expect(wrap.flush()).toBe(' fil');
  expect(wrap.midLine()).toBe(true);
});
