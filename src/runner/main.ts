// Entry point of the vm-agent runner in the container: `node cadre-runner.mjs --task "<text>" [--task-id ID] [--attempt N] [--max-turns N] [--max-output-tokens N] [--retry-base-ms N] [--max-retries N]
// [--attempt-id ID] [--credentials-on-stdin]` (or the task on stdin). Prints one JSON event per line on stdout; exit code per runnerExitCodes.
import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { isCadreError } from '../errors.js';
import { assertUnreadable, splitCredentials } from './credential.js';
import { parseShell } from '../policy/parser.js';
import { openJournal, taskIdPattern } from './journal.js';
import { runnerExitCodes, type RunnerEvent } from './events.js';
import { runVmAgentLoop, type RunnerOutcome } from './loop.js';
import { watchHost } from './host-watch.js';
import { gatewayMcpTools } from './mcp-tools.js';
import { runnerModel } from './model.js';
import { defaultRetryPolicy, retryNotice } from '../model/retry.js';
import { runnerTools } from './tools/index.js';

/** Where the workspace is; CADRE_RUNNER_WORKSPACE exists for tests on the host only. */
const workspaceRoot = process.env.CADRE_RUNNER_WORKSPACE ?? '/workspace';

function emit(event: RunnerEvent): Promise<void> {
  return new Promise((resolve) => process.stdout.write(`${JSON.stringify(event)}\n`, () => resolve()));
}

async function exit(event: RunnerOutcome | Extract<RunnerEvent, { type: 'runner.failed' }>, code: number): Promise<never> {
  await emit(event);
  process.exit(code);
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const parts: Buffer[] = [];
  for await (const part of process.stdin) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function positiveInteger(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${text}`);
  return value;
}

async function main(): Promise<void> {
  // WebAssembly compiled by V8's baseline compiler only: optimising the shell parser's grammar in the background made the
  // first process started after it take 1.5-2.5 s in a sandbox container (bench/vm-exec.mjs); commands parse in microseconds anyway.
  setFlagsFromString('--liftoff-only');
  let task: string;
  let attempt: number;
  let maxTurns: number;
  let maxOutputTokens: number;
  let taskId: string | undefined;
  let backoff: { baseMs: number; maxRetries: number };
  let credentials: Record<string, string> = {};
  try {
    const { values } = parseArgs({
      options: {
        task: { type: 'string' }, 'task-id': { type: 'string' }, attempt: { type: 'string' }, 'max-turns': { type: 'string' }, 'max-output-tokens': { type: 'string' },
        'retry-base-ms': { type: 'string' }, 'max-retries': { type: 'string' }, 'attempt-id': { type: 'string' }, 'credentials-on-stdin': { type: 'boolean' },
      },
    });
    backoff = {
      baseMs: positiveInteger(values['retry-base-ms'], 'retry-base-ms', defaultRetryPolicy.initialDelayMs),
      maxRetries: Number(values['max-retries'] ?? defaultRetryPolicy.maxRetries),
    };
    if (!Number.isInteger(backoff.maxRetries) || backoff.maxRetries < 0) throw new Error(`--max-retries must be a whole number, got ${values['max-retries']}`);
    taskId = values['task-id'];
    if (taskId !== undefined && !taskIdPattern.test(taskId)) throw new Error(`--task-id must be letters, digits and dashes, got ${taskId}`);
    let stdin = values.task === undefined && !values['credentials-on-stdin'] ? await readStdin() : '';
    if (values['credentials-on-stdin']) {
      // Nothing is read before the runner knows the commands it starts cannot read it back.
      assertUnreadable();
      ({ credentials, rest: stdin } = splitCredentials(await readStdin()));
    }
    task = (values.task ?? stdin).trim();
    attempt = positiveInteger(values.attempt, 'attempt', 1);
    maxTurns = positiveInteger(values['max-turns'], 'max-turns', 50);
    maxOutputTokens = positiveInteger(values['max-output-tokens'], 'max-output-tokens', 8_192);
    if (!task) throw new Error('no task: pass --task "<text>" or the task on stdin');
  } catch (error) {
    if (isCadreError(error) && error.code === 'runner.credential-exposed') return exit({ type: 'runner.failed', code: error.code, message: error.message, remedy: error.remedy }, runnerExitCodes.failed);
    return exit({ type: 'runner.failed', code: 'runner.usage', message: (error as Error).message, remedy: 'Usage: cadre-runner --task "<text>" [--task-id ID] [--attempt N] [--max-turns N] [--max-output-tokens N] [--retry-base-ms N] [--max-retries N]' }, runnerExitCodes.usage);
  }

  const controller = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => controller.abort());
  // cadre gone (killed): the command is stopped and the runner ends; the next start shows the task as interrupted.
  watchHost({ socketPath: process.env.CADRE_GATEWAY_SOCKET, output: process.stdout, onGone: () => controller.abort() });
  // The credential lives in this object only, never in process.env (which the commands' environment is made from).
  const env = { ...process.env, ...credentials };
  let workspace: string;
  let model;
  try {
    workspace = realpathSync(workspaceRoot);
    // A 429, 5xx or mid-stream overload is waited out here with cadre's one retry policy (the host's too); the task does not
    // retry a model failure again (src/agents/vm/attempt.ts), so a failing provider gets at most 1 + maxRetries calls.
    model = runnerModel(env, {
      retry: { initialDelayMs: backoff.baseMs, maxRetries: backoff.maxRetries },
      onRetry: (notice) => void emit({ type: 'progress', message: `${retryNotice(notice)}.` }),
    });
  } catch (error) {
    const failed = isCadreError(error)
      ? { code: error.code, message: error.message, remedy: error.remedy }
      : { code: 'runner.no-workspace', message: `The workspace ${workspaceRoot} is missing: ${(error as Error).message}`, remedy: 'The container must have the workspace mounted at /workspace.' };
    return exit({ type: 'runner.failed', ...failed }, runnerExitCodes.failed);
  }

  await emit({ type: 'runner.started', task, attempt, workspace, provider: model.provider, model: model.model });
  // The command policy's shell parser loads while the model thinks, not when the agent's first command waits for it.
  void parseShell('true').catch(() => undefined);
  const mcpTools = await gatewayMcpTools(env).catch(async (error: unknown) => {
    await emit({ type: 'progress', message: `The MCP tools offered to containers are unavailable (${error instanceof Error ? error.message : String(error)}); vm-agent works without them.` });
    return [];
  });
  const tools = [...runnerTools, ...mcpTools];
  // Attempts of one task share its journal: a retry continues the conversation and never replays what is done.
  const journal = taskId === undefined ? undefined : openJournal(workspace, taskId);
  const outcome = await runVmAgentLoop({
    task, attempt, workspace, model, tools, emit: (event) => void emit(event), signal: controller.signal, maxTurns, maxOutputTokens,
    ...(journal ? { history: journal.history, onMessage: journal.append } : {}),
  });
  const code = outcome.type === 'runner.finished' ? runnerExitCodes.finished
    : outcome.type === 'runner.budget-exhausted' ? runnerExitCodes.budgetExhausted
    : outcome.code === 'runner.cancelled' ? runnerExitCodes.cancelled
    : runnerExitCodes.failed;
  return exit(outcome, code);
}

await main();
