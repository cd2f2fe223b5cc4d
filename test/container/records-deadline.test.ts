// A deadline moved by /vm-config outlives the cadre process: it is kept beside the workspace and read back over the creation label.
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { saveDeadline, withSavedDeadline, type ContainerRecord } from '../../src/container/records.js';

const record = (root: string): ContainerRecord => ({
  id: 'vm-0a1b', dockerId: 'abc', session: 's', repoUrl: 'https://example.com/r.git', image: 'cadre-sandbox:0', deadline: Date.parse('2026-01-01T00:00:00Z'),
  workspace: { root, dir: join(root, 'workspace'), disk: { mechanism: 'watchdog', limitBytes: 1 } },
  limits: { memoryBytes: 1, cpus: 1, pids: 1, diskBytes: 1 }, networkIsolation: false, allowedDomains: [], installation: '', home: '',
  state: { status: 'running', running: true, startedAt: '', finishedAt: '', exitCode: 0, oomKilled: false, error: '' },
});

it('reads back the saved deadline instead of the label, and keeps the label when nothing was saved', async () => {
  const root = await mkdtemp(join(tmpdir(), 'cadre-deadline-'));
  expect((await withSavedDeadline(record(root))).deadline).toBe(Date.parse('2026-01-01T00:00:00Z'));
  const moved = Date.parse('2026-01-01T02:30:00Z');
  await saveDeadline(root, moved);
  expect((await withSavedDeadline(record(root))).deadline).toBe(moved);
  expect(await readFile(join(root, 'deadline'), 'utf8')).toBe('2026-01-01T02:30:00.000Z\n');
  expect((await stat(join(root, 'deadline'))).mode & 0o777).toBe(0o600);
});

it('ignores an unreadable or garbled deadline file', async () => {
  const root = await mkdtemp(join(tmpdir(), 'cadre-deadline-'));
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(root, 'deadline'), 'not a date');
  expect((await withSavedDeadline(record(root))).deadline).toBe(Date.parse('2026-01-01T00:00:00Z'));
  expect((await withSavedDeadline(record(''))).deadline).toBe(Date.parse('2026-01-01T00:00:00Z'));
});
