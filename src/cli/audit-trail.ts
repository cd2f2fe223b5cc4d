// Opens this run's audit log and gives the root its audit actor: the single writer, fed by `audit.record` events.
import { fromCallback, type EventObject } from 'xstate';
import { auditFileFor, createAuditWriter, newAuditSessionId } from '../store/audit.js';
import { loadAuditKey } from '../store/audit-key.js';
import type { CadrePaths } from '../store/paths.js';
import type { OutputSink } from './output.js';

export type AuditRecordEvent = { type: 'audit.record'; recordType: string; data: unknown };

export interface AuditTrail {
  file: string;
  /** The actor logic the root registers as `audit`. */
  logic: ReturnType<typeof fromCallback<EventObject>>;
  /** Writes the signed checkpoint and closes the log. */
  close(): Promise<void>;
}

export async function openAuditTrail({ paths, sink }: { paths: CadrePaths; env: NodeJS.ProcessEnv; sink: OutputSink }): Promise<AuditTrail> {
  const key = await loadAuditKey(paths.keysDir);
  const session = newAuditSessionId();
  const writer = await createAuditWriter({ file: auditFileFor(paths.auditDir, session), key, session });
  let warned = false;
  const record = (type: string, data: unknown): void => {
    writer.append(type, data).catch((error: unknown) => {
      if (warned) return;
      warned = true;
      sink({ type: 'output.message', level: 'warn', text: `The audit trail could not be written: ${error instanceof Error ? error.message : String(error)}` });
    });
  };
  let closed = false;
  return {
    file: writer.file,
    // Every root actor (a /resume starts a new one) shares this one writer, so records stay in one chain.
    logic: fromCallback<EventObject>(({ receive }) => {
      receive((event) => {
        if (event.type === 'audit.record' && !closed) record((event as AuditRecordEvent).recordType, (event as AuditRecordEvent).data);
      });
    }),
    close: async () => {
      if (closed) return;
      closed = true;
      await writer.close();
    },
  };
}
