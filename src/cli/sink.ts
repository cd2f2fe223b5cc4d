// The global options every run shares, the renderer they choose, and how a failure becomes an exit code.
import { exitCodes, expectedFailure } from '../errors.js';
import { createTextRenderer } from './render-text.js';
import { createJsonRenderer } from './render-json.js';
import { promptOnScreen, writeAbovePrompt } from './line-prompt.js';
import type { OutputSink } from '../output.js';

export interface GlobalOptions {
  cwd: string;
  command: string[];
  json?: boolean;
  resume?: string;
  inspect?: boolean;
  trace?: string;
  color: boolean;
  /** -p: one task to run without the prompt, after the -c entries. */
  prompt?: string;
  /** -m: the model for this run, as CADRE_MODEL would name it. */
  model?: string;
  /** --trust: use the project's settings that need trust for this run, without asking. */
  trust?: boolean;
}

/** The environment a run sees: -m names the model as CADRE_MODEL would, for this run only. */
export function runEnvironment(options: Pick<GlobalOptions, 'model'>): NodeJS.ProcessEnv {
  return options.model ? { ...process.env, CADRE_MODEL: options.model } : process.env;
}

export function createSink(options: { json?: boolean; color: boolean }): OutputSink {
  return options.json
    ? createJsonRenderer(process.stdout)
    : createTextRenderer({
      out: process.stdout, err: process.stderr, color: options.color && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR, abovePrompt: writeAbovePrompt, promptOnScreen,
    });
}

export function reportFailure(error: unknown, sink: OutputSink): number {
  const expected = expectedFailure(error);
  if (expected) {
    sink({ type: 'output.error', code: expected.code, message: expected.message, remedy: expected.remedy });
    return expected.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  sink({ type: 'output.error', code: 'internal', message: `cadre hit an unexpected error: ${message}`, remedy: 'This is a bug in cadre: please report it (CADRE_DEBUG=1 prints the stack trace).' });
  if (process.env.CADRE_DEBUG) console.error(error);
  return exitCodes.commandFailed;
}
