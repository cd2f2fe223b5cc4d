// The vm side's budget: the session's one figure, the gateway's journal of calls in flight, and the charge of the calls a
// kill -9 of cadre interrupted (to their own session, when it runs).
import { join } from 'node:path';
import { createBudget } from '../gateway/budget.js';
import { openCallJournal, openInterruptedCalls } from '../gateway/call-journal.js';
import { say, type OutputSink } from '../output.js';
import type { SessionRef } from './actors.js';

export async function createVmBudget(options: {
  dataDir: string;
  session: () => SessionRef;
  audit: (type: string, data: Record<string, unknown>) => void;
  sink: OutputSink;
}) {
  const { session, audit } = options;
  const sessionContext = () => session().getSnapshot().context;
  const charge = (input: number, output: number): void => session().send({ type: 'budget.used', tokens: input + output, inputTokens: input, outputTokens: output });
  // Model calls in flight, written before each is sent: what a kill -9 of cadre leaves there, the next start charges.
  const journalDir = join(options.dataDir, 'journal');
  const interrupted = await openInterruptedCalls(journalDir, {
    audit: (call) => audit('gateway.call', { ...call, end: 'interrupted', reserved: call.input + call.output, tokensIn: call.input, tokensOut: call.output, error: 'cadre ended (killed) while the call was in flight; charged its reservation' }),
    charge: (call) => charge(call.input, call.output),
  }).catch((error: unknown) => {
    options.sink(say(`The gateway's journal of calls in flight could not be read (${error instanceof Error ? error.message : String(error)}); calls a crash interrupted are not charged.`, 'warn'));
    return undefined;
  });
  // Charged to their session when it runs: now, or once it is resumed.
  let chargedFor = '';
  const chargeInterrupted = (): void => {
    const name = sessionContext().name;
    if (name === chargedFor) return;
    chargedFor = name;
    void interrupted?.chargeFor(name).catch(() => undefined);
  };
  chargeInterrupted();
  const watchSession = interrupted ? session().subscribe(chargeInterrupted) : undefined;
  const journal = openCallJournal(journalDir);
  // The session holds the one budget figure: the gateways reserve against what it says is used.
  const budget = createBudget({
    journal,
    account: { used: () => sessionContext().budget.used, limit: () => sessionContext().budget.limit },
    onEvent: (event) => {
      // Every settled gateway call, whatever became of its task: the one source of the session's vm-agent usage.
      if (event.type === 'budget.charged') {
        charge(event.input, event.output);
        return;
      }
      audit('budget.exhausted', { used: event.used, limit: event.limit });
      session().send({ type: 'budget.exhausted' });
    },
  });
  return {
    budget,
    close(): void {
      watchSession?.unsubscribe();
      journal.close();
    },
  };
}
