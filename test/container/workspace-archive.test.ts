// What a hostile container can put in the archive of its workspace: nothing of it lands outside the folder cadre made.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterEach, expect, it } from 'vitest';
import { unpackWorkspace } from '../../src/container/workspace-archive.js';

type Entry = tar.Headers & { body?: string };

/** An archive as docker's GET archive of /workspace would send it, with the entries a hostile sandbox chose. */
function archive(entries: Entry[]): Readable {
  const pack = tar.pack();
  for (const { body, ...header } of entries) pack.entry(header, body ?? '');
  pack.finalize();
  return pack;
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folders(): { parent: string; dest: string } {
  const parent = mkdtempSync(join(tmpdir(), 'cadre-archive-test-'));
  made.push(parent);
  const dest = join(parent, 'dest');
  return { parent, dest };
}

it('unpacks files, folders and links under the folder, without docker\'s leading folder name', async () => {
  const { dest } = folders();
  const result = await unpackWorkspace(archive([
    { name: 'workspace', type: 'directory' },
    { name: 'workspace/src', type: 'directory' },
    { name: 'workspace/src/a.ts', body: 'export {};\n' },
    { name: 'workspace/link', type: 'symlink', linkname: 'src/a.ts' },
  ]), dest, { maxBytes: 1000 });
  expect(result).toEqual({ files: 1, bytes: 11 });
  expect(readdirSync(dest).sort()).toEqual(['link', 'src']);
});

it.each([
  ['a name that climbs out', [{ name: 'workspace/../../escaped.txt', body: 'x' }]],
  ['a file written through a link the archive made', [{ name: 'workspace/out', type: 'symlink', linkname: '..' }, { name: 'workspace/out/escaped.txt', body: 'x' }]],
  ['more bytes than the limit', [{ name: 'workspace/big', body: 'x'.repeat(2000) }]],
  ['a file over a link of the same name', [{ name: 'workspace/escaped.txt', type: 'symlink', linkname: '../escaped.txt' }, { name: 'workspace/escaped.txt', body: 'x' }]],
] as [string, Entry[]][])('refuses %s and writes nothing outside the folder', async (_name, entries) => {
  const { parent, dest } = folders();
  await expect(unpackWorkspace(archive(entries), dest, { maxBytes: 1000 })).rejects.toThrow();
  expect(existsSync(join(parent, 'escaped.txt'))).toBe(false);
});

it('leaves out devices and fifos, and set-id bits', async () => {
  const { dest } = folders();
  await unpackWorkspace(archive([
    { name: 'workspace/dev', type: 'character-device', devmajor: 1, devminor: 3 },
    { name: 'workspace/fifo', type: 'fifo' },
    { name: 'workspace/tool', body: '#!/bin/sh\n', mode: 0o4755 },
  ]), dest, { maxBytes: 1000 });
  expect(readdirSync(dest)).toEqual(['tool']);
  const { statSync } = await import('node:fs');
  expect(statSync(join(dest, 'tool')).mode & 0o7777).toBe(0o755);
});
