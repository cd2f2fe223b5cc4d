// The text renderer on a terminal: progress redrawn in place, and with a prompt on screen, output written above it in whole lines.
import { describe, expect, it } from 'vitest';
import { createTextRenderer } from '../../src/cli/render-text.js';

/** One terminal: stdout and stderr land in the same transcript, as on a real screen. */
function terminal(promptOnScreen: () => boolean) {
  let screen = '';
  const stream = { isTTY: true, write: (text: string) => ((screen += text), true) } as unknown as NodeJS.WritableStream & { isTTY: boolean };
  const render = createTextRenderer({
    out: stream, err: stream, color: false,
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
});
