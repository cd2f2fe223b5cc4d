// The runner's JSON-lines protocol: one event per stdout line, from the container to the host supervisor.
import { z } from 'zod';

const usage = z.object({ inputTokens: z.number(), outputTokens: z.number() });

export const runnerEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('runner.started'), task: z.string(), attempt: z.number(), workspace: z.string(), provider: z.string(), model: z.string() }),
  /** What the model says between tool calls (its reasoning, shown to the person). */
  z.object({ type: z.literal('progress'), message: z.string() }),
  z.object({ type: z.literal('tool.call'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({ type: z.literal('tool.result'), id: z.string(), name: z.string(), ok: z.boolean(), display: z.string() }),
  z.object({ type: z.literal('command.output'), id: z.string(), stream: z.enum(['stdout', 'stderr']), chunk: z.string() }),
  /** `turn` is this model turn's usage as the provider reported it; `total` the run's so far. */
  z.object({ type: z.literal('usage'), turn: usage, total: usage }),
  z.object({
    type: z.literal('policy.denied'),
    tool: z.string(),
    /** The command or path that was refused. */
    subject: z.string(),
    rule: z.string(),
    reason: z.string(),
  }),
  /** The container ran out of memory while a command ran: the kernel killed `kills` of its processes (the runner survived). */
  z.object({ type: z.literal('resource.oom'), command: z.string(), kills: z.number(), limitBytes: z.number().nullable() }),
  z.object({ type: z.literal('runner.finished'), summary: z.string(), usage }),
  z.object({ type: z.literal('runner.failed'), code: z.string(), message: z.string(), remedy: z.string() }),
  z.object({ type: z.literal('runner.budget-exhausted'), message: z.string(), usage }),
]);

export type RunnerEvent = z.infer<typeof runnerEventSchema>;
export type RunnerEventSink = (event: RunnerEvent) => void;

/** The runner's exit codes; the supervisor trusts the events first and these second. */
export const runnerExitCodes = { finished: 0, failed: 1, usage: 2, budgetExhausted: 3, cancelled: 130 } as const;

/** Parses one stdout line; undefined for a line that is not a runner event (stray output is ignored). */
export function parseRunnerEvent(line: string): RunnerEvent | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = runnerEventSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
