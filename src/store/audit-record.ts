// The audit record: canonical JSON, its SHA-256 hash chained through `prev`, and its HMAC.
import { hash, timingSafeEqual } from 'node:crypto';

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
  return hashOf(record, record.data === undefined ? undefined : canonicalJson(record.data));
}

/**
 * The SHA-256 of `canonicalJson({ seq, ts, session, type, data, prev })`, given the data's canonical JSON: the fields
 * written out in sorted key order (data, prev, seq, session, ts, type), a missing one left out as canonicalJson leaves it.
 * The writer hashes a record without building its object and walking it again.
 */
function hashOf(fields: Pick<AuditRecord, 'seq' | 'ts' | 'session' | 'type' | 'prev'>, dataJson: string | undefined): string {
  const { seq, ts, session, type, prev } = fields;
  let text = '';
  const add = (name: string, json: string | undefined): void => {
    if (json !== undefined) text += `${text === '' ? '{' : ','}"${name}":${json}`;
  };
  const scalar = (value: unknown): string | undefined => (value === undefined ? undefined : canonicalJson(value));
  add('data', dataJson);
  add('prev', scalar(prev));
  add('seq', scalar(seq));
  add('session', scalar(session));
  add('ts', scalar(ts));
  add('type', scalar(type));
  // One shot: no hash object per record.
  return hash('sha256', text === '' ? '{}' : `${text}}`, 'hex');
}

/**
 * A record the writer seals: its hash, its HMAC and the line written to the log: the record's JSON, its data's keys in
 * the order the code wrote them (what people read in the log and in `cadre audit show`; the hash does not depend on it).
 */
export function sealRecord(key: Uint8Array, fields: { seq: number; ts: string; session: string; type: string; prev: string }, data: unknown): { hash: string; hmac: string; line: string } {
  const { seq, ts, session, type, prev } = fields;
  const digest = hashOf(fields, data === undefined ? undefined : canonicalJson(data));
  const hmac = hmacHex(key, digest);
  const dataLine = JSON.stringify(data);
  const line = `{"seq":${JSON.stringify(seq)},"ts":${JSON.stringify(ts)},"session":${JSON.stringify(session)},"type":${JSON.stringify(type)},${dataLine === undefined ? '' : `"data":${dataLine},`}"prev":${JSON.stringify(prev)},"hash":"${digest}","hmac":"${hmac}"}\n`;
  return { hash: digest, hmac, line };
}

/** HMAC-SHA256's block: a key longer than this is hashed first (RFC 2104). */
const blockBytes = 64;
/** Texts up to this many UTF-16 units (at most 3 UTF-8 bytes each) are written into the key's scratch buffer. */
const scratchChars = 85;
/** Per key object (a key is never changed in place): the key XORed with the inner and outer pads, each followed by room for what is hashed after it. */
const padsByKey = new WeakMap<Uint8Array, { inner: Buffer; outer: Buffer }>();

function padsFor(key: Uint8Array): { inner: Buffer; outer: Buffer } {
  let pads = padsByKey.get(key);
  if (pads === undefined) {
    const block = Buffer.alloc(blockBytes);
    block.set(key.length > blockBytes ? hash('sha256', key, 'buffer') : key);
    pads = { inner: Buffer.alloc(blockBytes + scratchChars * 3), outer: Buffer.alloc(blockBytes + 32) };
    for (let index = 0; index < blockBytes; index += 1) {
      pads.inner[index] = block[index]! ^ 0x36;
      pads.outer[index] = block[index]! ^ 0x5c;
    }
    padsByKey.set(key, pads);
  }
  return pads;
}

/**
 * HMAC-SHA256 of `text` (UTF-8) in hex: createHmac's value, as two one-shot hashes over pads made once per key. The writer
 * signs every record; a Hmac object per record cost it more than both hashes.
 */
export function hmacHex(key: Uint8Array, text: string): string {
  const { inner, outer } = padsFor(key);
  const innerDigest = text.length <= scratchChars
    ? hash('sha256', inner.subarray(0, blockBytes + inner.write(text, blockBytes, 'utf8')), 'buffer')
    : hash('sha256', Buffer.concat([inner.subarray(0, blockBytes), Buffer.from(text, 'utf8')]), 'buffer');
  outer.set(innerDigest, blockBytes);
  return hash('sha256', outer, 'hex');
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
