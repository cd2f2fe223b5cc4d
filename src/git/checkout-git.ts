// The host's git in the person's own checkout (a trusted repository), without prompts, and a long-lived "has this object?" query.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** What steers git to another repository or asks at a terminal is left out: cadre works on the checkout it names, never waiting for an answer. */
export function checkoutGitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !/^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|COMMON_DIR|CEILING_DIRECTORIES)$/.test(name)));
  return { ...kept, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
}

export interface CheckoutGitResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `git -C <checkout> …args`, writing `input` to its stdin; resolves with its exit code and output (never rejects on a non-zero exit). */
export function checkoutGit(checkout: string, args: string[], options: { env: NodeJS.ProcessEnv; input?: Uint8Array; timeoutMs?: number }): Promise<CheckoutGitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', checkout, ...args], { env: checkoutGitEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString('utf8')).slice(-4_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 5 * 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: stderr.trim() });
    });
    // A git that exits early (a refused pack) closes its stdin: that is its answer, not a crash of cadre.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? Buffer.alloc(0));
  });
}

export interface ObjectPresence {
  /** Whether the checkout's repository holds object `oid` (of any type). */
  has(oid: string): Promise<boolean>;
  close(): void;
}

/** One `git cat-file --batch-check` in the checkout answering presence queries in order. */
export function objectPresence(checkout: string, env: NodeJS.ProcessEnv): ObjectPresence {
  const child = spawn('git', ['-C', checkout, 'cat-file', '--batch-check=%(objectname) %(objecttype)'], { env: checkoutGitEnv(env), stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting: { resolve: (present: boolean) => void; reject: (error: Error) => void }[] = [];
  const failAll = (error: Error) => {
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };
  child.once('error', failAll);
  child.once('close', () => failAll(new Error('git cat-file ended early')));
  child.stdin.on('error', () => undefined);
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(!line.endsWith(' missing')));
  return {
    has(oid) {
      if (!/^[0-9a-f]{40,64}$/.test(oid)) return Promise.resolve(false);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${oid}\n`);
      });
    },
    close() {
      child.stdin.end();
    },
  };
}
