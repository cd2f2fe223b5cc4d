// The audit chain: 50 records verify; every kind of tampering fails naming the first bad seq; secrets never reach the file.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { liveMarkerFile } from '../../src/store/audit-live.js';
import { genesisHash, recordHash, type AuditRecord } from '../../src/store/audit-record.js';
import { verifyAuditFile } from '../../src/store/audit-verify.js';
import { auditFileFor, createAuditWriter, currentAuditFile, formatAuditForPeople, newAuditSessionId } from '../../src/store/audit.js';
import { resolvePaths } from '../../src/store/paths.js';
import { secretSamples } from './secrets.js';
import { tempDir } from './temp.js';

const key = randomBytes(32);

/** A sealed log of 50 records plus its checkpoint (51 lines). */
async function sealedLog(): Promise<{ file: string; lines: string[] }> {
  const session = newAuditSessionId();
  const file = auditFileFor(await tempDir(), session);
  const writer = await createAuditWriter({ file, key, session });
  await writer.append('session.started', { cwd: '/project' });
  for (let index = 1; index < 49; index += 1) {
    await writer.append(index % 2 === 0 ? 'command.typed' : 'command.executed', { text: `step ${index}`, command: 'npm test', exitCode: 0, durationMs: index });
  }
  await writer.append('session.ended', { reason: 'exit' });
  await writer.close();
  return { file, lines: (await readFile(file, 'utf8')).trimEnd().split('\n') };
}

async function tampered(file: string, lines: string[]) {
  await writeFile(file, `${lines.join('\n')}\n`);
  return verifyAuditFile(file, key);
}

describe('audit log', () => {
  it('leaves no file open when its live marker cannot be made', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    // A folder where the marker goes: the marker's rename onto it fails.
    await mkdir(join(liveMarkerFile(file), 'x'), { recursive: true });
    const before = (await readdir('/proc/self/fd')).length;
    await expect(createAuditWriter({ file, key: randomBytes(32), session })).rejects.toThrow();
    expect((await readdir('/proc/self/fd')).length).toBe(before);
  });

  it('chains 50 records and a signed checkpoint that verify intact', async () => {
    const { file, lines } = await sealedLog();
    expect(lines).toHaveLength(51);
    const records = lines.map((line) => JSON.parse(line) as AuditRecord);
    expect(records[0]).toMatchObject({ seq: 1, type: 'session.started', prev: genesisHash });
    expect(records[1]?.prev).toBe(records[0]?.hash);
    expect(records[0]?.hash).toBe(recordHash(records[0] as AuditRecord));
    expect(records[50]).toMatchObject({ seq: 51, type: 'audit.checkpoint', data: { count: 50, lastHash: records[49]?.hash } });
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 51, live: false });
  });

  it('detects an edited data field', async () => {
    const { file, lines } = await sealedLog();
    lines[19] = (lines[19] as string).replace('"step 19"', '"step 1900"');
    expect(await tampered(file, lines)).toMatchObject({ ok: false, seq: 20, line: 20, reason: expect.stringMatching(/edited/) });
  });

  it('detects an edit whose hash was recomputed without the key', async () => {
    const { file, lines } = await sealedLog();
    const record = JSON.parse(lines[9] as string) as AuditRecord;
    record.data = { text: 'rm -rf /' };
    record.hash = recordHash(record);
    lines[9] = JSON.stringify(record);
    expect(await tampered(file, lines)).toMatchObject({ ok: false, seq: 10, reason: expect.stringMatching(/HMAC/) });
  });

  it('detects a deleted line', async () => {
    const { file, lines } = await sealedLog();
    lines.splice(29, 1);
    expect(await tampered(file, lines)).toMatchObject({ ok: false, seq: 30, reason: expect.stringMatching(/expected seq 30 but found 31/) });
  });

  it('detects a line replaced by something that is not a record', async () => {
    const { file, lines } = await sealedLog();
    lines[2] = 'null';
    expect(await tampered(file, lines)).toMatchObject({ ok: false, seq: 3, reason: expect.stringMatching(/not a record/) });
    expect(await formatAuditForPeople(file)).toContain('#?    line 3 is not a record');
  });

  it('detects two swapped lines', async () => {
    const { file, lines } = await sealedLog();
    [lines[4], lines[5]] = [lines[5] as string, lines[4] as string];
    expect(await tampered(file, lines)).toMatchObject({ ok: false, seq: 5, line: 5 });
  });

  it('detects truncated last lines, checkpoint included', async () => {
    const { file, lines } = await sealedLog();
    expect(await tampered(file, lines.slice(0, 48))).toMatchObject({ ok: false, seq: 49, reason: expect.stringMatching(/without a checkpoint/) });
    expect(await tampered(file, lines.slice(0, 50))).toMatchObject({ ok: false, seq: 51 });
  });

  it('detects a different key', async () => {
    const { file } = await sealedLog();
    expect(await verifyAuditFile(file, randomBytes(32))).toMatchObject({ ok: false, seq: 1, reason: expect.stringMatching(/HMAC/) });
  });

  it('detects records appended after the checkpoint', async () => {
    const { file, lines } = await sealedLog();
    expect(await tampered(file, [...lines, lines[50] as string])).toMatchObject({ ok: false, seq: 52, reason: expect.stringMatching(/follows the checkpoint/) });
  });

  it('accepts a log without checkpoint only while its signed live marker names a running process', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    await writer.append('session.started', {});
    await writer.append('command.typed', { text: '/status' });
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 2, live: true });
    const marker = JSON.parse(await readFile(liveMarkerFile(file), 'utf8')) as { pid: number };
    await writeFile(liveMarkerFile(file), JSON.stringify({ ...marker, pid: 1 }));
    expect(await verifyAuditFile(file, key)).toMatchObject({ ok: false, seq: 3 });
    await writer.close();
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 3, live: false });
  });

  it('detects the end of a live log cut before the next record is written', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    for (let index = 0; index < 5; index += 1) await writer.append('command.typed', { text: `/status ${index}` });
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 5, live: true });
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    await writeFile(file, `${lines.slice(0, 3).join('\n')}\n`);
    expect(await verifyAuditFile(file, key)).toMatchObject({ ok: false, seq: 4, reason: expect.stringMatching(/has written 5 records to it: its end was cut/) });
    await writeFile(file, '');
    expect(await verifyAuditFile(file, key)).toMatchObject({ ok: false, seq: 1 });
  });

  it('keeps up with a burst (a gateway records every model call): records appended together reach the disk together, in order, and verify', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    const burst = Array.from({ length: 300 }, (_, index) => writer.append('gateway.call', { status: 200, tokensIn: index, tokensOut: 1 }));
    // One fsync per record wrote about 80 records a second, and the rest waited in memory, lost if cadre was killed.
    await burst[0];
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(300);
    expect((await Promise.all(burst)).map((record) => record.seq)).toEqual(Array.from({ length: 300 }, (_, index) => index + 1));
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 300, live: true });
    const late = writer.append('session.ended', { reason: 'exit' });
    await writer.close();
    await expect(late).resolves.toMatchObject({ seq: 301 });
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 302, live: false });
  });

  it('continues an unsealed log and refuses a sealed one', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const first = await createAuditWriter({ file, key, session });
    await first.append('session.started', {});
    const second = await createAuditWriter({ file, key, session });
    await second.append('command.typed', { text: 'continued' });
    await second.close();
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 3, live: false });
    await expect(createAuditWriter({ file, key, session })).rejects.toMatchObject({ code: 'audit.log-unusable' });
  });

  it('redacts every secret kind before hashing, so none reaches the file', async () => {
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    for (const [kind, secret] of Object.entries(secretSamples)) {
      await writer.append('command.executed', { command: `deploy --secret ${secret}`, kind, env: { API_KEY: 'plain-value' } });
    }
    await writer.append('command.typed', { text: 'curl -H "Authorization: Bearer opaque-token-value" "https://x/?password=hunter2"' });
    await writer.close();
    const text = await readFile(file, 'utf8');
    for (const secret of [...Object.values(secretSamples), 'opaque-token-value', 'hunter2', 'plain-value']) {
      expect(text).not.toContain(secret.split('\n')[1] ?? secret);
    }
    expect(text).toContain('[redacted:github-token]');
    expect(await verifyAuditFile(file, key)).toMatchObject({ ok: true });
  });

  it('prints a readable line per record', async () => {
    const { file } = await sealedLog();
    const text = await formatAuditForPeople(file);
    const lines = text.split('\n');
    expect(lines).toHaveLength(51);
    expect(lines[0]).toMatch(/^#1 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ +session\.started +\{"cwd":"\/project"\}$/);
    expect(lines[1]).toMatch(/^#2 .* command\.executed +npm test → exit 0 in 1 ms$/);
    expect(lines[2]).toMatch(/^#3 .* command\.typed +step 2$/);
    expect(lines[50]).toMatch(/audit\.checkpoint +50 records sealed/);
  });
});

describe('audit file naming', () => {
  it('names logs by session ids sortable to the millisecond', () => {
    const id = newAuditSessionId(new Date('2026-11-21T16:55:31.123Z'));
    expect(id).toMatch(/^20261121T165531\.123Z-[0-9a-f]{6}$/);
    expect(auditFileFor('/a', id)).toBe(`${join('/a', id)}.jsonl`);
    expect(() => auditFileFor('/a', '../x')).toThrow();
  });

  it('shows the newest of logs started in the same second: the one started last, whatever the random suffixes', async () => {
    const home = await tempDir();
    const { auditDir } = resolvePaths({ cwd: home, env: { CADRE_HOME: home } });
    // The random suffixes set against the start order: the earlier sessions' are the largest there are.
    const withSuffix = (id: string, suffix: string): string => id.replace(/-[0-9a-f]{6}$/, `-${suffix}`);
    const ids = [
      withSuffix(newAuditSessionId(new Date('2026-11-21T16:55:31.020Z')), 'ffffff'),
      withSuffix(newAuditSessionId(new Date('2026-11-21T16:55:31.480Z')), 'fffffe'),
      withSuffix(newAuditSessionId(new Date('2026-11-21T16:55:31.950Z')), '000000'),
    ];
    for (const id of ids) {
      const writer = await createAuditWriter({ file: auditFileFor(auditDir, id), key, session: id });
      await writer.append('session.started', { cwd: home });
      await writer.close();
    }
    expect(currentAuditFile({ cwd: home, env: { CADRE_HOME: home } })).toBe(auditFileFor(auditDir, ids[2]!));
  });

  it('orders logs whose ids have no milliseconds (older cadre) by their second among the new ones', async () => {
    const home = await tempDir();
    const { auditDir } = resolvePaths({ cwd: home, env: { CADRE_HOME: home } });
    const newest = async (...ids: string[]): Promise<string> => {
      for (const id of ids) {
        const writer = await createAuditWriter({ file: auditFileFor(auditDir, id), key, session: id });
        await writer.append('session.started', { cwd: home });
        await writer.close();
      }
      return currentAuditFile({ cwd: home, env: { CADRE_HOME: home } });
    };
    // An upgrade in the middle of a second: the older cadre's log, then the new one's. By name alone '.' sorts before 'Z'
    // and the older log looked newest.
    const upgraded = newAuditSessionId(new Date('2026-11-24T16:53:37.906Z'));
    expect(await newest('20261124T165337Z-3f9a1c', upgraded)).toBe(auditFileFor(auditDir, upgraded));
    // An older cadre run again a second later (a downgrade): its log is the newest.
    expect(await newest('20261124T165338Z-000000')).toBe(auditFileFor(auditDir, '20261124T165338Z-000000'));
  });
});
