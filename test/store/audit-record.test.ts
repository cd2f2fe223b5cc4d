// The hashed form of an audit record stays byte for byte what older cadre wrote: canonical JSON and record hashes against golden values.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, genesisHash, hmacHex, recordHash, sealRecord, type AuditRecord } from '../../src/store/audit-record.js';
import { redactedJsonValue } from '../../src/store/redact.js';
import { unpackCorpus } from '../support/corpus.js';
import { edgyValue } from './edgy-value.js';

const goldenDataLineHash = 'e7a64d92b91d7b9e456c0e138b25dbe1831ce594965e41830982d8982e6dcbef';

describe('audit record hash', () => {
  it('hashes a record whose data JSON would drop or convert (undefined, NaN, -0, Date, toJSON, Map, holes, __proto__) as cadre always did', () => {
    const data = redactedJsonValue(edgyValue());
    const record = { seq: 7, ts: '2026-01-02T03:04:05.678Z', session: 's', type: 'gateway.call', data, prev: genesisHash };
    // Both golden values were computed by the cadre of commit 46138d8 (redactValue, a JSON round trip, the old canonicalJson).
    expect(recordHash(record)).toBe('ba2838d01731e50922a146c0c122e21e789aa97ef132de08dd824760c6bccb2d');
    expect(createHash('sha256').update(JSON.stringify(data)).digest('hex')).toBe(goldenDataLineHash);
  });

  it('writes the canonical JSON of every JSON file of a real project byte for byte as before', () => {
    const project = unpackCorpus('nestjs-boilerplate');
    try {
      const files: string[] = [];
      const walk = (folder: string): void => {
        for (const name of readdirSync(folder).sort()) {
          const path = join(folder, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (name.endsWith('.json')) files.push(path);
        }
      };
      walk(project.root);
      const hash = createHash('sha256');
      let parsed = 0;
      for (const file of files) {
        let value: unknown;
        try {
          value = JSON.parse(readFileSync(file, 'utf8'));
        } catch {
          continue;
        }
        parsed += 1;
        hash.update(relative(project.root, file)).update('\n').update(canonicalJson(value)).update('\n');
      }
      expect(parsed).toBe(37);
      // Computed by the cadre of commit 46138d8 over the same files.
      expect(hash.digest('hex')).toBe('6ee1c90ce74d6818beb650fd0b7d31ac22bde47e5cd04206e3eb80bb293fb388');
    } finally {
      project.dispose();
    }
  });

  it('seals a record whose line reads back to the same fields and hash (edge values, every JSON file of a real project)', () => {
    const key = new Uint8Array(32).fill(7);
    const project = unpackCorpus('nestjs-boilerplate');
    try {
      const values: unknown[] = [redactedJsonValue(edgyValue()), null, 'text "quoted" \u2028', 12.5, []];
      const walk = (folder: string): void => {
        for (const name of readdirSync(folder).sort()) {
          const path = join(folder, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (name.endsWith('.json')) {
            try {
              values.push(redactedJsonValue(JSON.parse(readFileSync(path, 'utf8'))));
            } catch {
              // not JSON (a comment in a tsconfig): not a value an audit record holds
            }
          }
        }
      };
      walk(project.root);
      expect(values.length).toBeGreaterThan(40);
      values.forEach((data, index) => {
        const fields = { seq: index + 1, ts: '2026-01-02T03:04:05.678Z', session: 'sé"ssion', type: 'gateway.call', prev: genesisHash };
        const sealed = sealRecord(key, fields, data);
        expect(sealed.line.endsWith('\n')).toBe(true);
        const read = JSON.parse(sealed.line) as AuditRecord;
        expect(Object.keys(read)).toEqual(['seq', 'ts', 'session', 'type', 'data', 'prev', 'hash', 'hmac']);
        expect(read).toEqual({ ...fields, data, hash: sealed.hash, hmac: sealed.hmac });
        // The data as the code wrote it, its keys in their order: what people read in the log.
        expect(sealed.line).toContain(`"data":${JSON.stringify(data)},"prev":`);
        // What verify does with the line: the data read back hashes as the data sealed.
        expect(recordHash(read)).toBe(sealed.hash);
        expect(sealed.hmac).toBe(hmacHex(key, sealed.hash));
      });
    } finally {
      project.dispose();
    }
  });

  it('keeps the old forms of values parsed JSON never holds: an array hole stays empty, undefined in an array is null', () => {
    const holes = [1];
    holes[2] = 3;
    expect(canonicalJson({ b: [undefined, null], a: holes, c: undefined, d: () => 1 })).toBe('{"a":[1,,3],"b":[null,null],"d":null}');
  });
});
