// The live marker under load: rewritten in place while readers read it, it never reads as "no live writer"; verify during a burst never reports a cut.
import { randomBytes } from 'node:crypto';
import { appendFile, open, readFile, stat, writeFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { liveMarkerFile, liveWriter, openLiveMarker } from '../../src/store/audit-live.js';
import { genesisHash, sealRecord } from '../../src/store/audit-record.js';
import { verifyAuditFile } from '../../src/store/audit-verify.js';
import { auditFileFor, createAuditWriter, newAuditSessionId } from '../../src/store/audit.js';
import { tempDir } from './temp.js';

const key = randomBytes(32);

describe('audit live marker', () => {
  it('is never read as "no live writer" while it is rewritten in place: many reads during many rewrites see a signed head, never going back', async () => {
    const file = auditFileFor(await tempDir(), newAuditSessionId());
    const marker = await openLiveMarker(file, key, { startedAt: new Date().toISOString(), count: 0, lastHash: genesisHash });
    let written = 0;
    let done = false;
    const writing = (async () => {
      // Heads whose digits change length (9 → 10, 99 → 100...), so rewrites differ in every field but the pid. The rewrites
      // run on this thread while the readers' reads run on the I/O threads.
      for (written = 1; written <= 4000; written += 1) {
        await marker.update({ count: written, lastHash: randomBytes(32).toString('hex') });
        if (written % 4 === 0) await setImmediate();
      }
      done = true;
    })();
    const reader = async (): Promise<number> => {
      let reads = 0;
      let last = 0;
      while (!done) {
        const head = await liveWriter(file, key);
        expect(head).toMatchObject({ pid: process.pid });
        expect(head!.count).toBeGreaterThanOrEqual(last);
        expect(head!.count).toBeLessThanOrEqual(written);
        last = head!.count;
        reads += 1;
      }
      return reads;
    };
    const reads = await Promise.all([reader(), reader(), reader()]);
    await writing;
    expect(reads.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(300);
    const text = await readFile(liveMarkerFile(file), 'utf8');
    expect(text).toHaveLength(256);
    expect(JSON.parse(text)).toMatchObject({ pid: process.pid, count: 4000 });
    await marker.remove();
    await expect(stat(liveMarkerFile(file))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads a half-rewritten marker again while the process it names lives, and gets the rewritten head', async () => {
    const file = auditFileFor(await tempDir(), newAuditSessionId());
    const marker = await openLiveMarker(file, key, { startedAt: new Date().toISOString(), count: 0, lastHash: genesisHash });
    await marker.update({ count: 9, lastHash: 'a'.repeat(64) });
    const before = await readFile(liveMarkerFile(file));
    await marker.update({ count: 10, lastHash: 'b'.repeat(64) });
    const after = await readFile(liveMarkerFile(file));
    // What a reader can meet in the middle of the rewrite: the new bytes up to the hash, the old ones after.
    await writeFile(liveMarkerFile(file), Buffer.concat([after.subarray(0, 80), before.subarray(80)]));
    expect(JSON.parse((await readFile(liveMarkerFile(file), 'utf8')))).toMatchObject({ count: 10, lastHash: expect.stringMatching(/^b+a+$/) });
    // The rest of the rewrite lands 5 ms later, in place (never an empty file in between).
    const rest = await open(liveMarkerFile(file), 'r+');
    const finishing = setTimeout(() => void rest.write(after, 0, after.length, 0), 5);
    expect(await liveWriter(file, key)).toEqual({ pid: process.pid, count: 10, lastHash: 'b'.repeat(64) });
    clearTimeout(finishing);
    await rest.close();
    await marker.remove();
  });

  it('verify while a gateway-like burst is being written reports the log live and intact, never cut', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    let done = false;
    const writing = (async () => {
      for (let burst = 0; burst < 60; burst += 1) {
        await Promise.all(Array.from({ length: 16 }, (_, index) => writer.append('gateway.call', { status: 200, tokensIn: burst * 16 + index })));
      }
      done = true;
    })();
    const verdicts: unknown[] = [];
    while (!done) verdicts.push(await verifyAuditFile(file, key));
    await writing;
    expect(verdicts.length).toBeGreaterThan(5);
    for (const verdict of verdicts) expect(verdict).toMatchObject({ ok: true, live: true });
    await writer.close();
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 961, live: false });
  });

  /** A live log as the writer leaves it between batches: `count` sealed records, its marker naming this process and that head. */
  async function liveLog(count: number): Promise<{ file: string; next: string; release: () => Promise<void> }> {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    let prev = genesisHash;
    const seal = (seq: number): string => {
      const sealed = sealRecord(key, { seq, ts: new Date().toISOString(), session, type: 'gateway.call', prev }, { status: 200, tokensIn: seq, path: '/v1/messages'.repeat(40) });
      prev = sealed.hash;
      return sealed.line;
    };
    let text = '';
    for (let seq = 1; seq <= count; seq += 1) text += seal(seq);
    await writeFile(file, text);
    const marker = await openLiveMarker(file, key, { startedAt: new Date().toISOString(), count, lastHash: prev });
    return { file, next: seal(count + 1), release: () => marker.remove() };
  }

  it('verify meets a batch half written (a reader can see one write of the log in part) and reads again: live and intact, not cut', async () => {
    const { file, next, release } = await liveLog(3);
    // The first part of the next record is on disk, the rest lands 30 ms later: what a read sees in the middle of one write.
    await appendFile(file, next.slice(0, 200));
    const finishing = setTimeout(() => void appendFile(file, next.slice(200)), 30);
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 4, live: true });
    clearTimeout(finishing);
    await release();
  });

  it('verify reports a live log whose last line stays cut, after reading it again for about a second', async () => {
    const { file, next, release } = await liveLog(3);
    await appendFile(file, next.slice(0, 200));
    const started = performance.now();
    expect(await verifyAuditFile(file, key)).toMatchObject({ ok: false, seq: 4, reason: expect.stringMatching(/not valid JSON/) });
    expect(performance.now() - started).toBeLessThan(5_000);
    await release();
  });

  it('takes a marker that is not an object, or unsigned but naming a live process, for no live writer, and says so quickly', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    await writer.append('session.started', {});
    const signed = await readFile(liveMarkerFile(file), 'utf8');
    for (const forged of ['null', '[]', '"x"', JSON.stringify({ ...JSON.parse(signed), count: 0 }), `{"pid":${process.pid},`]) {
      await writeFile(liveMarkerFile(file), forged);
      const started = performance.now();
      expect(await verifyAuditFile(file, key)).toMatchObject({ ok: false, seq: 2, reason: expect.stringMatching(/no live cadre/) });
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    await writer.close();
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 2, live: false });
  });
});
