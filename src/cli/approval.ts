// The approval prompt of a plan: y approves, n rejects (with an optional reason), v asks for the full diff.
import { emitKeypressEvents } from 'node:readline';

export type ApprovalAnswer = { decision: 'approve' } | { decision: 'reject'; reason: string } | { decision: 'view' } | { decision: 'cancel' };

/** Reads one key in raw mode; resolves its name (Ctrl-C and Ctrl-D count as "cancel"). */
function readKey(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve) => {
    emitKeypressEvents(input);
    const raw = input.isTTY;
    if (raw) input.setRawMode(true);
    input.resume();
    const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined): void => {
      input.off('keypress', onKey);
      if (raw) input.setRawMode(false);
      input.pause();
      if (key?.ctrl && (key.name === 'c' || key.name === 'd')) resolve('cancel');
      else resolve((key?.name ?? text ?? '').toLowerCase());
    };
    input.on('keypress', onKey);
  });
}

async function askReason(): Promise<string> {
  const { default: prompts } = await import('prompts');
  const answer = (await prompts({ type: 'text', name: 'reason', message: 'Why not? (fed back to the agent; Enter to stop here)' })) as { reason?: string };
  return (answer.reason ?? '').trim();
}

/** Asks once at the terminal (other keys ask again); the plan actor shows the diff on `view` and then asks again. */
export async function askApproval(options: { out?: NodeJS.WriteStream; input?: NodeJS.ReadStream } = {}): Promise<ApprovalAnswer> {
  const out = options.out ?? process.stdout;
  const input = options.input ?? process.stdin;
  for (;;) {
    out.write('Apply this plan?  [y] yes   [n] no   [v] view the full diff  › ');
    const key = await readKey(input);
    out.write(`${key === 'cancel' ? '' : key}\n`);
    if (key === 'y') return { decision: 'approve' };
    if (key === 'cancel' || key === 'escape') return { decision: 'cancel' };
    if (key === 'n') {
      const reason = await askReason();
      return reason ? { decision: 'reject', reason } : { decision: 'cancel' };
    }
    if (key === 'v') return { decision: 'view' };
  }
}
