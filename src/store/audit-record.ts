// The audit record: canonical JSON, its SHA-256 hash chained through `prev`, and its HMAC.
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

export const genesisHash = '0'.repeat(64);
export const checkpointType = 'audit.checkpoint';

/** The record types the foundation writes; the container and gateway add their own. */
export type FoundationRecordType =
  | 'session.started'
  | 'session.ended'
  | 'command.typed'
  | 'plan.approved'
  | 'plan.rejected'
  | 'file.written'
  | 'command.executed';

export interface AuditRecord {
  seq: number;
  ts: string;
  session: string;
  type: string;
  data: unknown;
  prev: string;
  hash: string;
  hmac: string;
}

/** Object keys as JSON strings, kept: records of one type repeat the same keys. */
const quotedKeys = new Map<string, string>();
const maxQuotedKeys = 4_096;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (key.length <= 64 && quotedKeys.size < maxQuotedKeys) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** JSON with object keys sorted and no whitespace; the byte form that gets hashed. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) out += ',';
      const item: unknown = value[index];
      // A hole stays empty, as it always did (parsed JSON has none).
      if (item !== undefined || index in value) out += canonicalJson(item ?? null);
    }
    return `${out}]`;
  }
  if (typeof value === 'object' && value !== null) {
    let out = '';
    // The default sort compares UTF-16 code units, as `<` does.
    for (const key of Object.keys(value).sort()) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (child === undefined) continue;
      out += `${out === '' ? '' : ','}${quotedKey(key)}:${canonicalJson(child)}`;
    }
    return `{${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function recordHash(record: Pick<AuditRecord, 'seq' | 'ts' | 'session' | 'type' | 'data' | 'prev'>): string {
  const { seq, ts, session, type, data, prev } = record;
  // One shot: no hash object per record.
  return hash('sha256', canonicalJson({ seq, ts, session, type, data, prev }), 'hex');
}

/** A record the writer seals: its hash, its HMAC and the line written to the log (the record's JSON). */
export function sealRecord(key: Uint8Array, fields: { seq: number; ts: string; session: string; type: string; prev: string }, data: unknown): { hash: string; hmac: string; line: string } {
  const { seq, ts, session, type, prev } = fields;
  const digest = recordHash({ seq, ts, session, type, data, prev });
  const hmac = hmacHex(key, digest);
  return { hash: digest, hmac, line: `${JSON.stringify({ seq, ts, session, type, data, prev, hash: digest, hmac })}\n` };
}

export function hmacHex(key: Uint8Array, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The signature a checkpoint carries over the number of records before it and the last hash. */
export function checkpointSignature(key: Uint8Array, count: number, lastHash: string): string {
  return hmacHex(key, `${checkpointType}:${count}:${lastHash}`);
}
