// Runs cadre itself: the interactive prompt, `-c` commands, or commands piped on standard input.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CadreError, exitCodes } from '../errors.js';
import { createSink, reportFailure, runEnvironment, type GlobalOptions } from './sink.js';
import type { OutputSink } from '../output.js';
import type { App } from '../app/root.js';
import type { TrustChoice, TrustQuestion } from '../app/folder-trust.js';
import { onProcessEnd, signalExitCodes, type EndReason } from './process-end.js';

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

/** Runs `-c` entries in order and stops at the first that fails, like a script with `set -e`, or when `ended` says cadre must stop. */
async function runEntries(app: App, entries: Iterable<string>, ended: () => boolean): Promise<number> {
  for (const entry of entries) {
    if (ended()) break;
    const outcome = await app.submit(entry);
    if (ended()) break;
    if (outcome.exitCode !== exitCodes.ok || outcome.exit) return outcome.exitCode;
  }
  return exitCodes.ok;
}

/**
 * Runs piped entries as the prompt would: each one is answered, a failed one too (a program driving cadre through a pipe
 * sends its next command after reading the answer, so stopping there would leave it waiting on a cadre that reads no
 * more). Ends at /exit or the end of input, and resolves the first failure's exit code. The pipe is let go on the way
 * out, so cadre ends at /exit even while the writer keeps it open.
 */
async function runPiped(app: App, ended: () => boolean): Promise<number> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let exitCode: number = exitCodes.ok;
  try {
    for await (const line of lines) {
      if (ended()) break;
      if (!line.trim()) continue;
      const outcome = await app.submit(line);
      if (ended()) break;
      if (exitCode === exitCodes.ok) exitCode = outcome.exitCode;
      if (outcome.exit) break;
    }
  } finally {
    lines.close();
    process.stdin.destroy();
  }
  return exitCode;
}

async function startInspection(options: GlobalOptions, sink: OutputSink) {
  if (!options.inspect && !options.trace) return undefined;
  const { startInspection: start } = await import('../inspect/index.js');
  return start({ inspect: Boolean(options.inspect), traceFile: options.trace, sink });
}

/**
 * The interactive start shows the prompt first and starts the actor system behind it when the person
 * starts typing, so the prompt appears at once and an idle one stays small; what start-up says is held
 * until the first entry, and a start-up failure closes the prompt and is reported. A crash left behind
 * is offered first (that path waits for start-up).
 */
async function runInteractive(cwd: string, start: () => Promise<App>, release: () => void, sink: OutputSink, closing: AbortSignal, announce: () => Promise<{ text: string; startNow: boolean }>): Promise<number> {
  const [{ runPromptLoop }, { resolvePaths }, { crashLockPresent }] = await Promise.all([
    import('./prompt-loop.js'), import('../store/paths.js'), import('../store/crash-lock.js'),
  ]);
  const paths = resolvePaths({ cwd, env: process.env });
  const failed = new AbortController();
  closing.addEventListener('abort', () => failed.abort(), { once: true });
  let failure: unknown;
  let started: Promise<App> | undefined;
  const begin = (): Promise<App> => (started ??= start());
  const crashed = await crashLockPresent(paths.sessionsDir);
  if (crashed) begin();
  let readyPromise: Promise<App | undefined> | undefined;
  const ready = (): Promise<App | undefined> => (readyPromise ??= begin().then((app) => app, (error: unknown) => {
    failure = error;
    failed.abort();
    return undefined;
  }));
  // Above the first prompt, one line says what is active; the actor system starts at the first key pressed, so a prompt
  // left idle holds the prompt and not the app (sessions, agents, the vm side). It starts at once when the vm side has
  // work from the start (a warm pool, containers of earlier sessions), and when the line cannot be made (a bad config):
  // the start then says what is wrong without waiting for a key.
  const atFirstPrompt = (): void => {
    process.stdin.once('data', () => void ready());
    announce().then(({ text, startNow }) => {
      sink({ type: 'output.message', level: 'dim', text });
      if (startNow) void ready();
    }, () => void ready());
  };
  if (crashed) {
    const app = await ready();
    release();
    await app?.offerCrashRecovery();
  }
  const whenReady = async (): Promise<App> => {
    const app = await ready();
    release();
    if (!app) throw failure;
    return app;
  };
  await runPromptLoop({
    submit: async (text) => (await whenReady()).loopTarget().submit(text),
    interrupt: async () => (await whenReady()).loopTarget().interrupt(),
    endOfInput: async () => (await whenReady()).loopTarget().endOfInput(),
  }, { historyFile: paths.historyFile, signal: failed.signal, onFirstPrompt: () => setImmediate(atFirstPrompt), warn: (text) => sink({ type: 'output.message', level: 'warn', text }) });
  if (failure !== undefined) {
    release();
    return reportFailure(failure, sink);
  }
  return exitCodes.ok;
}

/** Holds output events until released (while the prompt is on screen and start-up runs behind it). */
function holdingSink(sink: OutputSink): { sink: OutputSink; release: () => void } {
  let held: Parameters<OutputSink>[0][] | null = [];
  return {
    sink: (event) => (held ? held.push(event) : sink(event)),
    release: () => {
      const queued = held ?? [];
      held = null;
      for (const event of queued) sink(event);
    },
  };
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
  // A closed output, SIGTERM or SIGHUP: the running command stops, the loop ends, and the session is saved on the way out.
  let ending: EndReason | undefined;
  const closing = new AbortController();
  const stopListening = onProcessEnd((reason) => {
    if (ending) return;
    ending = reason;
    closing.abort();
    app?.stopCommand();
  });
  const inspection = await startInspection(options, sink).catch((error: unknown) => {
    exitCode = reportFailure(error, sink);
    return null;
  });
  if (inspection === null) return exitCode;
  try {
    const cwd = await checkProjectFolder(options.cwd);
    const interactive = options.command.length === 0 && Boolean(process.stdin.isTTY) && !options.json;
    const held = interactive ? holdingSink(sink) : { sink, release: () => undefined };
    // Settled before anything reads the project's config; only an interactive start asks.
    const { decideFolderTrust } = await import('../app/folder-trust.js');
    const askTrust = async (question: TrustQuestion): Promise<TrustChoice> => (await import('./trust-question.js')).askFolderTrust(question);
    const trust = await decideFolderTrust({ cwd, env: process.env, flag: options.trust === true, ...(interactive ? { ask: askTrust } : {}) });
    const start = (): Promise<App> => {
      const startup = import('../app/root.js').then(({ startApp }) =>
        startApp({ cwd, env: runEnvironment(options), sink: held.sink, interactive, trust, resume: options.resume, ...(inspection ? { inspect: inspection.inspect } : {}) }));
      startup.then((started) => (app = started), () => undefined);
      return startup;
    };
    if (interactive) {
      const announce = async (): Promise<{ text: string; startNow: boolean }> => (await import('./start-line.js')).startLine(cwd, runEnvironment(options), trust);
      exitCode = await runInteractive(cwd, start, held.release, sink, closing.signal, announce);
      return ending === 'SIGTERM' || ending === 'SIGHUP' ? signalExitCodes[ending] : exitCode;
    }
    app = await start();
    const ended = (): boolean => ending !== undefined;
    exitCode = options.command.length > 0 ? await runEntries(app, options.command, ended) : await runPiped(app, ended);
    if (interrupted) exitCode = exitCodes.interrupted;
    if (ending === 'SIGTERM' || ending === 'SIGHUP') exitCode = signalExitCodes[ending];
  } catch (error) {
    exitCode = reportFailure(error, sink);
  } finally {
    await app?.shutdown().catch((error: unknown) => reportFailure(error, sink));
    await inspection?.stop();
    process.off('SIGINT', onSigint);
    stopListening();
  }
  return exitCode;
}
