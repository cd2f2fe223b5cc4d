// One line of input at the prompt: the `prompts` text prompt with up/down history and Ctrl-C / Ctrl-D told apart.
import { createRequire } from 'node:module';

/** The parts of prompts' TextPrompt element this module relies on. */
interface TextPromptElement {
  value: string;
  cursor: number;
  cursorOffset: number;
  render(): void;
  bell(): void;
  _(char: string, key?: { ctrl?: boolean; name?: string }): void;
  aborted: boolean;
  abort(): void;
  on(event: 'submit' | 'abort' | 'exit', listener: (value: string) => void): void;
  // What is drawn, and how: read to erase the prompt and draw it again below background output.
  outputText: string;
  firstRender: boolean;
  out: NodeJS.WriteStream;
}
type TextPromptClass = new (options: Record<string, unknown>) => TextPromptElement;

const require = createRequire(import.meta.url);

let historyPromptClass: TextPromptClass | undefined;

/** Extends TextPrompt once, on first use, so start-up does not pay for it. */
function historyPrompt(): TextPromptClass {
  if (historyPromptClass) return historyPromptClass;
  const TextPrompt = require('prompts/lib/elements/text.js') as TextPromptClass;
  historyPromptClass = class HistoryPrompt extends TextPrompt {
    history: readonly string[] = [];
    position = 0;
    draft = '';
    endOfInput = false;

    constructor(options: Record<string, unknown>) {
      super(options);
      this.history = (options.history as readonly string[]) ?? [];
      this.position = this.history.length;
    }

    private show(value: string): void {
      this.value = value;
      this.cursor = value.length;
      this.cursorOffset = 0;
      this.render();
    }

    up(): void {
      if (this.position === 0) return this.bell();
      if (this.position === this.history.length) this.draft = this.value;
      this.position -= 1;
      this.show(this.history[this.position] ?? '');
    }

    down(): void {
      if (this.position >= this.history.length) return this.bell();
      this.position += 1;
      this.show(this.position === this.history.length ? this.draft : (this.history[this.position] ?? ''));
    }

    // Escape clears the line instead of leaving the prompt.
    exit(): void {
      this.position = this.history.length;
      this.show('');
    }

    // Ctrl-L clears the screen and draws the prompt again at the top, with what was typed (prompts would type a form feed).
    override _(char: string, key?: { ctrl?: boolean; name?: string }): void {
      if (key?.ctrl && key.name === 'l') {
        this.out.write('\x1b[H\x1b[2J');
        this.firstRender = true;
        this.render();
        return;
      }
      super._(char, key);
    }

    // Ctrl-D is a normal way out: the last prompt is drawn as ended, not with the ✖ of an abort (the event is still abort).
    override render(): void {
      if (!this.endOfInput) return super.render();
      this.aborted = false;
      super.render();
      this.aborted = true;
    }

    // prompts maps both Ctrl-C and Ctrl-D to abort; the key tells them apart.
    override abort(key?: { ctrl?: boolean; name?: string }): void {
      if (key?.ctrl && key.name === 'd') {
        if (this.value) return this.bell();
        this.endOfInput = true;
      }
      super.abort();
    }
  } as unknown as TextPromptClass;
  return historyPromptClass;
}

/** The prompt waiting for a line, while it is on screen. */
let onScreen: TextPromptElement | undefined;

/** True while a prompt waits for a line on screen. */
export const promptOnScreen = (): boolean => onScreen !== undefined;

/**
 * Runs `write` so that its output (a background vm-agent task's progress, say) lands above the prompt on screen: the
 * prompt's line is erased, `write` must end its output at the start of a line, and the prompt is drawn again below it
 * with what the person has typed so far. Returns false, without running `write`, when no prompt is on screen.
 */
export function writeAbovePrompt(write: () => void): boolean {
  const prompt = onScreen;
  if (!prompt) return false;
  const eraseDrawn = require('prompts/lib/util/clear.js') as (text: string, columns: number) => string;
  prompt.out.write(eraseDrawn(prompt.outputText, prompt.out.columns));
  write();
  // Drawn as new: nothing of the old prompt is left to erase.
  prompt.firstRender = true;
  prompt.render();
  return true;
}

export type LineResult = { kind: 'line'; text: string } | { kind: 'interrupt' } | { kind: 'eof' };

export interface LinePromptOptions {
  message: string;
  history: readonly string[];
  /** Closes the prompt (it then resolves as an interrupt). */
  signal?: AbortSignal;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/** Reads one line. Ctrl-C gives `interrupt`; Ctrl-D on an empty line gives `eof`. */
export function readLine(options: LinePromptOptions): Promise<LineResult> {
  const Prompt = historyPrompt();
  return new Promise((resolve) => {
    const prompt = new Prompt({
      message: options.message,
      history: options.history,
      stdin: options.stdin ?? process.stdin,
      stdout: options.stdout ?? process.stdout,
    }) as TextPromptElement & { endOfInput: boolean };
    onScreen = prompt;
    const close = (): void => prompt.abort();
    const done = (result: LineResult): void => {
      if (onScreen === prompt) onScreen = undefined;
      // One prompt per entry: a listener left on the long-lived signal would pile up (Node warns past ten, over the prompt).
      options.signal?.removeEventListener('abort', close);
      resolve(result);
    };
    prompt.on('submit', (value) => done({ kind: 'line', text: value }));
    prompt.on('abort', () => done(prompt.endOfInput ? { kind: 'eof' } : { kind: 'interrupt' }));
    prompt.on('exit', () => done({ kind: 'interrupt' }));
    if (options.signal?.aborted) prompt.abort();
    options.signal?.addEventListener('abort', close, { once: true });
  });
}
