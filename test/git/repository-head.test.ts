// repositoryHead (what /vm-status shows of a workspace) reads .git on the host: a pipe or a link out planted there neither hangs it nor shows host data.
import { execFile } from 'node:child_process';
import { mkdtemp, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repositoryHead } from '../../src/container/clone.js';
import { useServersAndWorkspaces } from './fixture.js';

describe('repositoryHead on a workspace the container wrote', () => {
  const fixture = useServersAndWorkspaces();
  const workspace = () => fixture.workspace();

  it('names the branch and commit of a plain clone', async () => {
    expect(await repositoryHead(await workspace())).toMatchObject({ branch: 'main', head: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it('fails instead of hanging when .git/HEAD is a named pipe', async () => {
    const dir = await workspace();
    await unlink(join(dir, '.git', 'HEAD'));
    await promisify(execFile)('mkfifo', [join(dir, '.git', 'HEAD')]);
    await expect(repositoryHead(dir)).rejects.toThrow();
  });

  it('does not read a host file that .git/HEAD links to', async () => {
    const dir = await workspace();
    const host = await mkdtemp(join(tmpdir(), 'cadre-host-'));
    fixture.removeLater(host);
    await writeFile(join(host, 'HEAD'), 'ref: refs/heads/host-only-branch\n');
    await unlink(join(dir, '.git', 'HEAD'));
    await symlink(join(host, 'HEAD'), join(dir, '.git', 'HEAD'));
    const seen = await repositoryHead(dir).then((head) => JSON.stringify(head), (error: unknown) => String(error));
    expect(seen).not.toContain('host-only-branch');
  });
});
