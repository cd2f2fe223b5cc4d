// The text renderer on a terminal: progress redrawn in place, and with a prompt on screen, output written above it in whole lines.
import { describe, expect, it } from 'vitest';
import { createTextRenderer } from '../../src/cli/render-text.js';

/** One terminal: stdout and stderr land in the same transcript, as on a real screen. */
function terminal(promptOnScreen: () => boolean, isTTY = true) {
  let screen = '';
  const stream = { isTTY, columns: 80, write: (text: string) => ((screen += text), true) } as unknown as NodeJS.WritableStream & { isTTY: boolean };
  const render = createTextRenderer({
    out: stream, err: stream, color: false, promptOnScreen,
    abovePrompt: (write) => {
      if (!promptOnScreen()) return false;
      screen += '<erase prompt>';
      write();
      screen += '<prompt>';
      return true;
    },
  });
  return { render, screen: () => screen };
}

describe('the text renderer', () => {
  it('redraws progress in place and ends its line before the next message', () => {
    const { render, screen } = terminal(() => false);
    render({ type: 'output.progress', id: 'p', label: 'Cloning' });
    render({ type: 'output.progress', id: 'p', label: 'Cloned' });
    render({ type: 'output.message', level: 'info', text: 'done' });
    expect(screen()).toBe('\r\x1b[2KCloning\r\x1b[2KCloned\ndone\n');
  });

  it('writes above the prompt in whole lines: partial output and progress end their line, errors keep their remedy', () => {
    let prompt = false;
    const { render, screen } = terminal(() => prompt);
    render({ type: 'output.progress', id: 'p', label: 'vm-agent: run-command npm test' });
    prompt = true;
    render({ type: 'output.stream', stream: 'stdout', chunk: 'suite started' });
    render({ type: 'output.progress', id: 'p', label: 'vm-agent tokens: 1 in · 1 out' });
    render({ type: 'output.error', code: 'x', message: 'It broke.', remedy: 'Try again.' });
    render({ type: 'output.message', level: 'info', text: 'Task 1 started.' });
    prompt = false;
    render({ type: 'output.message', level: 'info', text: 'after' });
    expect(screen()).toBe(
      '\r\x1b[2Kvm-agent: run-command npm test' +
        '<erase prompt>suite started\n<prompt>' +
        '<erase prompt>vm-agent tokens: 1 in · 1 out\n<prompt>' +
        '<erase prompt>✖ It broke.\n  → Try again.\n<prompt>' +
        '<erase prompt>Task 1 started.\n<prompt>' +
        // The prompt took the progress line's place: no empty line is added for it.
        'after\n',
    );
  });

  it('draws the waiting line in place, erases it for streamed text and when done, and ends mid-line text before other output', () => {
    const { render, screen } = terminal(() => false);
    const waiting = (elapsedMs: number, tokens: number, done?: boolean) =>
      render({ type: 'output.progress', id: 'model.waiting', label: 'Waiting for the model', elapsedMs, tokens, transient: true, ...(done ? { done } : {}) });
    waiting(0, 0);
    waiting(1200, 0);
    render({ type: 'output.model-text', text: 'Reading ' });
    waiting(2400, 3);
    render({ type: 'output.model-text', text: 'the files.\nNext' });
    render({ type: 'output.message', level: 'dim', text: '  · read src/a.ts' });
    waiting(65_000, 1234);
    waiting(66_000, 1234, true);
    render({ type: 'output.message', level: 'info', text: 'done' });
    expect(screen()).toBe(
      '\r\x1b[2KWaiting for the model · 0 s · 0 tokens · Ctrl-C cancels' +
      '\r\x1b[2KWaiting for the model · 1 s · 0 tokens · Ctrl-C cancels' +
      '\r\x1b[2KReading the files.\nNext\n  · read src/a.ts\n' +
      '\r\x1b[2KWaiting for the model · 1 min 05 s · 1,234 tokens · Ctrl-C cancels' +
      '\r\x1b[2Kdone\n',
    );
  });

  it('never writes the waiting line when output is not a terminal; streamed text is written as it comes', () => {
    const { render, screen } = terminal(() => false, false);
    render({ type: 'output.progress', id: 'model.waiting', label: 'Waiting for the model', elapsedMs: 0, tokens: 0, transient: true });
    render({ type: 'output.model-text', text: 'Hello' });
    render({ type: 'output.progress', id: 'model.waiting', label: 'Waiting for the model', transient: true, done: true });
    render({ type: 'output.message', level: 'info', text: 'done' });
    expect(screen()).toBe('Hello\ndone\n');
  });

  it('with a prompt on screen, holds streamed text until a whole line can go above it, and draws no waiting line', () => {
    const { render, screen } = terminal(() => true);
    render({ type: 'output.progress', id: 'model.waiting', label: 'Waiting for the model', elapsedMs: 0, tokens: 0, transient: true });
    render({ type: 'output.model-text', text: 'Half a ' });
    render({ type: 'output.model-text', text: 'line.\nAnd more' });
    expect(screen()).toBe('<erase prompt>Half a line.\n<prompt>');
  });
});
