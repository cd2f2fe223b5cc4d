// Opens this run's audit log; the root registers the store's audit actor over it as the single writer.
import { createAuditLogic } from '../store/audit-actor.js';
import { auditFileFor, createAuditWriter, newAuditSessionId } from '../store/audit.js';
import { loadAuditKey } from '../store/audit-key.js';
import type { CadrePaths } from '../store/paths.js';

export interface AuditTrail {
  file: string;
  /** This run's session id: the log's name, and the owner recorded with each plan it applies. */
  session: string;
  /** The actor logic the root registers as `audit`; every root (a /resume starts a new one) feeds the same chain. */
  logic: ReturnType<typeof createAuditLogic>;
  /** Writes the signed checkpoint and closes the log (the root's audit actor may already be gone). */
  close(): Promise<void>;
}

export async function openAuditTrail({ paths }: { paths: CadrePaths }): Promise<AuditTrail> {
  const key = await loadAuditKey(paths.keysDir);
  const session = newAuditSessionId();
  const writer = await createAuditWriter({ file: auditFileFor(paths.auditDir, session), key, session });
  let closed = false;
  return {
    file: writer.file,
    session,
    logic: createAuditLogic({ writer }),
    close: async () => {
      if (closed) return;
      closed = true;
      await writer.close();
    },
  };
}
