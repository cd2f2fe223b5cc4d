// Runs cadre itself: the interactive prompt, `-c` commands, or commands piped on standard input.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CadreError, exitCodes } from '../errors.js';
import { createSink, reportFailure, type GlobalOptions } from './main.js';
import type { OutputSink } from './output.js';
import type { App } from './root.js';

async function checkProjectFolder(dir: string): Promise<string> {
  const absolute = resolve(dir);
  const info = await stat(absolute).catch(() => null);
  if (!info?.isDirectory()) {
    throw new CadreError('cli.bad-cwd', `--cwd ${dir}: ${info ? 'is not a folder' : 'no such folder'}.`, {
      remedy: 'Give the path of an existing project folder.',
      exitCode: exitCodes.usage,
    });
  }
  return absolute;
}

/** Runs entries in order and stops at the first that fails, like a script with `set -e`. */
async function runEntries(app: App, entries: AsyncIterable<string> | Iterable<string>): Promise<number> {
  for await (const entry of entries) {
    const outcome = await app.submit(entry);
    if (outcome.exitCode !== exitCodes.ok || outcome.exit) return outcome.exitCode;
  }
  return exitCodes.ok;
}

async function* stdinLines(): AsyncIterable<string> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield line;
}

async function startInspection(options: GlobalOptions, sink: OutputSink) {
  if (!options.inspect && !options.trace) return undefined;
  const { startInspection: start } = await import('./inspection.js');
  return start({ inspect: Boolean(options.inspect), traceFile: options.trace, sink });
}

export async function runCadre(options: GlobalOptions): Promise<number> {
  const sink = createSink({ json: options.json, color: options.color !== false });
  let app: App | undefined;
  let exitCode: number = exitCodes.ok;
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
    app?.interrupt();
  };
  process.on('SIGINT', onSigint);
  const inspection = await startInspection(options, sink).catch((error: unknown) => {
    exitCode = reportFailure(error, sink);
    return null;
  });
  if (inspection === null) return exitCode;
  try {
    const cwd = await checkProjectFolder(options.cwd);
    const interactive = options.command.length === 0 && Boolean(process.stdin.isTTY) && !options.json;
    const { startApp } = await import('./root.js');
    app = await startApp({ cwd, env: process.env, sink, interactive, resume: options.resume, inspect: inspection?.inspect });
    if (options.command.length > 0) exitCode = await runEntries(app, options.command);
    else if (!interactive) exitCode = await runEntries(app, stdinLines());
    else {
      // At the prompt, Ctrl-C arrives as a key press; while a command runs it arrives as SIGINT.
      const { runPromptLoop } = await import('./prompt-loop.js');
      await app.offerCrashRecovery();
      await runPromptLoop(app.loopTarget(), { historyFile: app.paths.historyFile });
      return exitCodes.ok;
    }
    if (interrupted) exitCode = exitCodes.interrupted;
  } catch (error) {
    exitCode = reportFailure(error, sink);
  } finally {
    await app?.shutdown().catch((error: unknown) => reportFailure(error, sink));
    await inspection?.stop();
    process.off('SIGINT', onSigint);
  }
  return exitCode;
}
