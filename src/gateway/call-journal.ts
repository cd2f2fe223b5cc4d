// The gateway's journal of model calls in flight, in the cadre home: a line before a call is sent, one once it is charged.
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What names a call in the journal (and in its audit entry if cadre dies before it is charged). */
export interface CallLabel {
  session: string;
  cid: string;
  provider: string;
  model?: string;
}

/** A call a killed cadre left in flight: what it reserved was never charged. */
export interface InterruptedCall extends CallLabel {
  /** Input and output tokens reserved for it. */
  input: number;
  output: number;
  /** When it was sent (ISO), and the process that sent it. */
  at: string;
  pid: number;
  /** Already audited by an earlier start, which kept it because its session was not the one running then. */
  audited?: boolean;
}

export interface CallJournal {
  /** Written (synchronously) before the call is sent; throws when it cannot be (the call is then refused). */
  started(id: number, label: CallLabel, reserved: { input: number; output: number }): void;
  /** The call's reservation was lowered (to the provider's count): an interruption charges this input instead. */
  lowered(id: number, input: number): void;
  ended(id: number): void;
  /** Closes the journal; with no call in flight its file is removed. */
  close(): void;
}

const startedLine = z.object({
  id: z.number().int(), at: z.string(), session: z.string(), cid: z.string(), provider: z.string(), model: z.string().optional(),
  input: z.number().int().min(0), output: z.number().int().min(0), pid: z.number().int().optional(), audited: z.boolean().optional(),
});
const endedLine = z.object({ end: z.number().int() });
const loweredLine = z.object({ lower: z.number().int(), input: z.number().int().min(0) });
/** A process's journal, or the calls an earlier start kept for a session that was not running (pid 0: nobody's). */
const fileName = /^(?:calls-(\d+)|pending)-\d+\.jsonl$/;

/**
 * Opens this process's journal in `dir` (one file per process, calls-<pid>-<ms>.jsonl, private). Lines are appended with
 * one write each, to the page cache: a kill -9 of cadre loses none (a machine crash may lose the last ones).
 */
export function openCallJournal(dir: string): CallJournal {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `calls-${process.pid}-${Date.now()}.jsonl`);
  const fd = openSync(path, 'a', 0o600);
  let open = 0;
  let closed = false;
  const append = (line: string): void => {
    if (!closed) writeSync(fd, `${line}\n`);
  };
  // An end or a lowering that cannot be written (a full disk) costs at most a charge too many at the next start; the
  // charge itself goes on.
  const appendAfter = (line: string): void => {
    try {
      append(line);
    } catch {
      // Left as it is: see above.
    }
  };
  return {
    started(id, label, reserved) {
      open += 1;
      append(JSON.stringify({ id, at: new Date().toISOString(), ...label, input: reserved.input, output: reserved.output }));
    },
    lowered(id, input) {
      appendAfter(`{"lower":${id},"input":${input}}`);
    },
    ended(id) {
      open = Math.max(0, open - 1);
      appendAfter(`{"end":${id}}`);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
      if (open === 0) rmSync(path, { force: true });
    },
  };
}

/** True while process `pid` exists (a process of another user counts as existing). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The calls the journals of dead processes in `dir` left in flight, each file's then removed (`consume`, once the caller
 * has recorded them; but `keep`). A journal of a process still running (another cadre) is left alone; a line cut by the kill is skipped.
 */
export async function interruptedCalls(dir: string, isRunning: (pid: number) => boolean = running): Promise<{ calls: InterruptedCall[]; consume(keep?: string): Promise<void> }> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const files: string[] = [];
  const calls: InterruptedCall[] = [];
  for (const name of names) {
    const match = fileName.exec(name);
    if (match === null) continue;
    const pid = match[1] === undefined ? 0 : Number(match[1]);
    if (pid !== 0 && (!Number.isSafeInteger(pid) || pid === process.pid || isRunning(pid))) continue;
    files.push(join(dir, name));
    const open = new Map<number, InterruptedCall>();
    for (const line of (await readFile(join(dir, name), 'utf8')).split('\n')) {
      const parsed = parseLine(line);
      if (parsed === undefined) continue;
      if ('end' in parsed) open.delete(parsed.end);
      else if ('lower' in parsed) {
        const call = open.get(parsed.lower);
        if (call !== undefined) open.set(parsed.lower, { ...call, input: Math.min(call.input, parsed.input) });
      } else {
        const { id, ...call } = parsed;
        open.set(id, { pid, ...call });
      }
    }
    calls.push(...open.values());
  }
  return {
    calls,
    async consume(keep) {
      await Promise.all(files.filter((file) => file !== keep).map((file) => rm(file, { force: true })));
    },
  };
}

function parseLine(line: string): z.infer<typeof startedLine> | z.infer<typeof endedLine> | z.infer<typeof loweredLine> | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const ended = endedLine.safeParse(value);
  if (ended.success) return ended.data;
  const lowered = loweredLine.safeParse(value);
  if (lowered.success) return lowered.data;
  const started = startedLine.safeParse(value);
  return started.success ? started.data : undefined;
}

/** The calls killed cadres left in flight, audited, waiting for their sessions to run (see openInterruptedCalls). */
export interface InterruptedCalls {
  /** Charges (once) the calls of `session`: call it when that session runs (at the start, and when one is resumed). */
  chargeFor(session: string): Promise<void>;
}

/**
 * What a start does with the calls killed cadres left in flight (`dir` is the journals' folder): each is audited once as
 * interrupted and kept in one file of pending calls until `chargeFor` its session charges its reservation.
 */
export async function openInterruptedCalls(dir: string, input: { audit(call: InterruptedCall): void; charge(call: InterruptedCall): void }): Promise<InterruptedCalls> {
  const found = await interruptedCalls(dir);
  let pending: InterruptedCall[] = [];
  for (const call of found.calls) {
    if (call.audited !== true) input.audit(call);
    pending.push({ ...call, audited: true });
  }
  const file = join(dir, `pending-${Date.now()}.jsonl`);
  const save = async (): Promise<void> => {
    if (pending.length === 0) await rm(file, { force: true });
    else await writeFile(file, `${pending.map((call, index) => JSON.stringify({ id: index + 1, ...call })).join('\n')}\n`, { mode: 0o600 });
  };
  if (pending.length > 0) await save();
  await found.consume(file);
  let saving = Promise.resolve();
  return {
    chargeFor(session) {
      const due = pending.filter((call) => call.session === session);
      if (due.length === 0) return saving;
      pending = pending.filter((call) => call.session !== session);
      for (const call of due) input.charge(call);
      saving = saving.then(save, save);
      return saving;
    },
  };
}
