// The audit key: created once as 32 bytes, mode 0600 in a 0700 folder; looser modes and missing keys are refused.
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAuditKey } from '../../src/store/audit-key.js';
import { currentAuditFile } from '../../src/store/audit.js';
import { verifyAuditAt } from '../../src/store/audit-verify.js';
import { tempDir } from './temp.js';

describe('loadAuditKey', () => {
  it('creates a 32-byte key file with mode 0600 in a 0700 folder, and returns the same key after', async () => {
    const keysDir = join(await tempDir(), 'keys');
    const key = await loadAuditKey(keysDir);
    expect(key).toHaveLength(32);
    expect((await stat(join(keysDir, 'audit.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    expect((await loadAuditKey(keysDir)).equals(key)).toBe(true);
  });

  it('refuses a key file that others may read', async () => {
    const keysDir = join(await tempDir(), 'keys');
    await loadAuditKey(keysDir);
    await chmod(join(keysDir, 'audit.key'), 0o644);
    await expect(loadAuditKey(keysDir)).rejects.toMatchObject({ code: 'audit.key-insecure', remedy: expect.stringContaining('chmod 600') });
  });

  it('refuses a key of the wrong length', async () => {
    const keysDir = join(await tempDir(), 'keys');
    await mkdir(keysDir, { mode: 0o700 });
    await writeFile(join(keysDir, 'audit.key'), 'short', { mode: 0o600 });
    await expect(loadAuditKey(keysDir)).rejects.toMatchObject({ code: 'audit.key-invalid' });
  });

  it('does not invent a key for verification', async () => {
    const home = await tempDir();
    await expect(verifyAuditAt(join(home, 'x.jsonl'), { cwd: home, env: { CADRE_HOME: home } })).rejects.toMatchObject({ code: 'audit.key-missing' });
  });
});

describe('currentAuditFile', () => {
  it("is the session's log, or the newest log, or a clear error when there is none", async () => {
    const home = await tempDir();
    const env = { CADRE_HOME: home };
    expect(() => currentAuditFile({ cwd: home, env })).toThrow(expect.objectContaining({ code: 'audit.no-log' }));
    await mkdir(join(home, 'audit'));
    await writeFile(join(home, 'audit', '20260101T000000Z-aaaaaa.jsonl'), '');
    await writeFile(join(home, 'audit', '20261121T120000Z-bbbbbb.jsonl'), '');
    expect(currentAuditFile({ cwd: home, env })).toBe(join(home, 'audit', '20261121T120000Z-bbbbbb.jsonl'));
    expect(currentAuditFile({ cwd: home, env, session: 's1' })).toBe(join(home, 'audit', 's1.jsonl'));
  });
});
