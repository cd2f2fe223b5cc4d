// Autosave: serialized, coalescing writes; the lock; crash detection with a real dead process.
import { spawn } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAutosaver, findCrashedSession, isAlive } from '../../src/store/autosave.js';
import { crashLockPresent } from '../../src/store/crash-lock.js';
import { sessionData } from './session-data.js';
import { tempDir } from './temp.js';

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = child.pid;
  if (pid === undefined) throw new Error('node did not start');
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

const exists = (file: string) => access(file).then(() => true, () => false);

describe('autosave', () => {
  it('coalesces a burst: the latest data lands and every call resolves', async () => {
    const dir = await tempDir();
    const saver = await createAutosaver(dir);
    const saves = Array.from({ length: 20 }, (_, index) => saver.save('live', sessionData(`step-${index}`)));
    await Promise.all(saves);
    const onDisk = JSON.parse(await readFile(saver.file, 'utf8')) as { name: string; snapshot: { context: { name: string } } };
    expect(onDisk.name).toBe('live');
    expect(onDisk.snapshot.context.name).toBe('step-19');
    await saver.save('live', sessionData('after'));
    expect((JSON.parse(await readFile(saver.file, 'utf8')) as { snapshot: { context: { name: string } } }).snapshot.context.name).toBe('after');
    await saver.close({ clean: true });
  });

  it('holds a lock while running; a clean close removes it and leaves nothing to recover', async () => {
    const dir = await tempDir();
    const saver = await createAutosaver(dir);
    await saver.save('live', sessionData());
    const lock = JSON.parse(await readFile(join(dir, '.autosave.lock'), 'utf8')) as { pid: number; startedAt: string };
    expect(lock.pid).toBe(process.pid);
    expect(await findCrashedSession(dir)).toBeUndefined();
    await saver.close({ clean: true });
    expect(await exists(join(dir, '.autosave.lock'))).toBe(false);
    expect(await findCrashedSession(dir)).toBeUndefined();
  });

  it('finds the session a dead process left behind', async () => {
    const dir = await tempDir();
    const saver = await createAutosaver(dir);
    await saver.save('crashed', sessionData('last step'));
    await saver.close({ clean: false });
    const pid = await deadPid();
    expect(isAlive(pid)).toBe(false);
    await writeFile(join(dir, '.autosave.lock'), JSON.stringify({ pid, startedAt: '2026-01-01T00:00:00.000Z' }));
    const crashed = await findCrashedSession(dir);
    expect(crashed).toMatchObject({ pid, data: { name: 'crashed', snapshot: { context: { transcript: [{ text: 'last step' }] } } } });
  });

  it('a second cadre on the same project autosaves beside a live one, and its crash is found like the first one\'s', async () => {
    const dir = await tempDir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, '.autosave.lock'), JSON.stringify({ pid: child.pid, startedAt: '2026-01-01T00:00:00.000Z' }));
      await writeFile(join(dir, '.autosave.json'), 'the live cadre\'s own autosave, untouched');
      const saver = await createAutosaver(dir);
      expect(saver.file).toBe(join(dir, `.autosave-${process.pid}.json`));
      await saver.save('beside', sessionData('second session'));
      expect(await readFile(join(dir, '.autosave.json'), 'utf8')).toBe('the live cadre\'s own autosave, untouched');
      expect(await findCrashedSession(dir)).toBeUndefined();
      await saver.close({ clean: false });
      // This process "crashed": its slot's lock names a dead process.
      const pid = await deadPid();
      await writeFile(join(dir, `.autosave-${process.pid}.lock`), JSON.stringify({ pid, startedAt: '2026-01-02T00:00:00.000Z' }));
      expect(await crashLockPresent(dir)).toBe(true);
      expect(await findCrashedSession(dir)).toMatchObject({ pid, file: saver.file, data: { name: 'beside', snapshot: { context: { transcript: [{ text: 'second session' }] } } } });
    } finally {
      child.kill();
    }
  });

  it('a clean close of the second cadre leaves nothing to recover', async () => {
    const dir = await tempDir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, '.autosave.lock'), JSON.stringify({ pid: child.pid, startedAt: 'x' }));
      const saver = await createAutosaver(dir);
      await saver.save('beside', sessionData());
      await saver.close({ clean: true });
      expect(await exists(join(dir, `.autosave-${process.pid}.lock`))).toBe(false);
      expect(await crashLockPresent(dir)).toBe(false);
      expect(await findCrashedSession(dir)).toBeUndefined();
    } finally {
      child.kill();
    }
  });

  it('reports a corrupt autosave left by a crash instead of crashing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '.autosave.json'), '{"schemaVersion": 1, "na');
    await writeFile(join(dir, '.autosave.lock'), JSON.stringify({ pid: await deadPid(), startedAt: 'x' }));
    await expect(findCrashedSession(dir)).rejects.toMatchObject({ code: 'session.corrupt' });
  });
});
