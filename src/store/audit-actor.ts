// The audit actor: the single writer of a session's audit log, fed by `audit.record` events, sealed by `audit.close`.
import { fromCallback } from 'xstate';
import { isCadreError } from '../errors.js';
import { createAuditWriter, type AuditWriter } from './audit.js';

/** What the audit actor receives. */
export type AuditEvent =
  | { type: 'audit.record'; recordType: string; data: unknown }
  | { type: 'audit.close' };

/** What it sends back to its parent: the seal, or the first failure (later records are then refused). */
export type AuditReport =
  | { type: 'audit.closed'; file: string; count: number; lastHash: string }
  | { type: 'audit.failed'; code: string; message: string; remedy: string };

/**
 * Callback logic that owns one log: it opens `file`, or uses an already open `writer`
 * (so several actors in turn, e.g. across /resume, can feed one chain). Records are
 * appended in the order the events arrive, each one fsynced; `audit.close` writes the
 * signed checkpoint. Stopping the actor without `audit.close` leaves the log unsealed,
 * which `verify` reports once this process is gone.
 */
export function createAuditLogic(source: { file: string; key: Uint8Array; session: string } | { writer: AuditWriter }) {
  return fromCallback<AuditEvent>(({ receive, sendBack }) => {
    const opened: Promise<AuditWriter> = 'writer' in source ? Promise.resolve(source.writer) : createAuditWriter(source);
    let failed = false;
    const report = (error: unknown): void => {
      if (failed) return;
      failed = true;
      const { code, message, remedy } = isCadreError(error)
        ? error
        : { code: 'audit.bug', message: error instanceof Error ? error.message : String(error), remedy: 'Report this as a bug in cadre.' };
      sendBack({ type: 'audit.failed', code, message, remedy } satisfies AuditReport);
    };
    opened.catch(report);

    receive((event) => {
      if (event.type === 'audit.record') {
        opened.then((writer) => writer.append(event.recordType, event.data)).catch(report);
        return;
      }
      opened
        .then((writer) => writer.close())
        .then((checkpoint) => {
          const { count, lastHash } = checkpoint.data as { count: number; lastHash: string };
          sendBack({ type: 'audit.closed', file: 'writer' in source ? source.writer.file : source.file, count, lastHash } satisfies AuditReport);
        })
        .catch(report);
    });
  });
}
