// The workspace as a named volume on a real engine: a corpus project with its git history streamed in (owned by the sandbox
// user, into a container whose root is read-only and that has no network), measured inside, and copied back out confined.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyOutPaths, copyOutWorkspace, createWorkspaceVolume, fillWorkspace, removeWorkspaceVolume, volumeUsage, workspaceVolumeName } from '../../src/container/volume-workspace.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

describeDocker('workspace in a named volume', () => {
  const docker = testDocker();
  const volume = workspaceVolumeName('test', `vm-${process.pid.toString(16)}`);
  let project: CorpusCopy;
  let container: Docker.Container;
  const outs: string[] = [];

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    project = unpackCorpus('fastify-demo');
    const git = (...args: string[]) => execFileSync('git', ['-C', project.root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'corpus');
    execFileSync('ln', ['-s', 'README.md', join(project.root, 'readme-link')]);
    await createWorkspaceVolume(docker, volume, { 'cadre.test': 'volume-workspace' });
    container = await docker.createContainer({
      Image: image, Cmd: ['sleep', '600'], User: '1000:1000', WorkingDir: '/workspace', Labels: { 'cadre.test': 'volume-workspace' },
      HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Mounts: [{ Type: 'volume', Source: volume, Target: '/workspace' }] },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await container?.remove({ force: true }).catch(() => undefined);
    await removeWorkspaceVolume(docker, volume);
    project?.dispose();
    for (const out of outs) rmSync(out, { recursive: true, force: true });
  });

  it('fills the volume of a created container with the clone, owned by the sandbox user, history and links intact', async () => {
    await fillWorkspace(docker, container.id, project.root);
    await container.start();
    const owners = await execIn(docker, container, ['sh', '-c', 'find /workspace -xdev \\( ! -user 1000 -o ! -group 1000 \\) | head -5; stat -c %u:%g /workspace/package.json']);
    expect(owners.stdout.trim()).toBe('1000:1000');
    const log = await execIn(docker, container, ['git', '-C', '/workspace', 'log', '--format=%s']);
    expect(log.stdout.trim()).toBe('corpus');
    const status = await execIn(docker, container, ['git', '-C', '/workspace', 'status', '--porcelain']);
    expect(status.stdout).toBe('?? readme-link\n');
    expect((await execIn(docker, container, ['readlink', '/workspace/readme-link'])).stdout.trim()).toBe('README.md');
    // Its network is none: the engine gave it nothing but loopback.
    expect((await execIn(docker, container, ['sh', '-c', 'ls /sys/class/net'])).stdout.trim()).toBe('lo');
  });

  it('measures the workspace inside the container', async () => {
    const used = await volumeUsage(docker, container.id);
    const local = Number.parseInt(execFileSync('du', ['-sxb', project.root]).toString(), 10);
    expect(Math.abs(used - local) / local).toBeLessThan(0.05);
  });

  it('copies the workspace out with what the container changed; its links stay links and are never followed', async () => {
    await execIn(docker, container, ['sh', '-c', 'echo changed > /workspace/README.md && echo new > /workspace/added.txt && ln -s /etc /workspace/etc-link && ln -s ../../.. /workspace/up']);
    await container.pause();
    const out = await copyOutWorkspace(docker, container.id, { maxBytes: 200 * 1024 * 1024 });
    outs.push(out);
    await container.unpause();
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toBe('changed\n');
    expect(readFileSync(join(out, 'added.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(out, 'package.json'), 'utf8')).toBe(readFileSync(join(project.root, 'package.json'), 'utf8'));
    expect(existsSync(join(out, '.git', 'HEAD'))).toBe(true);
    expect(lstatSync(join(out, 'etc-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(out, 'up'))).toBe('../../..');
    const log = execFileSync('git', ['-C', out, 'log', '--format=%s']).toString().trim();
    expect(log).toBe('corpus');
  });

  it('copies out only the files asked for, each at its path, skipping those that are missing', async () => {
    const out = await copyOutPaths(docker, container.id, ['package.json', 'no-such.lock', '.git/refs'], { maxBytes: 10 * 1024 * 1024 });
    outs.push(out);
    expect(readFileSync(join(out, 'package.json'), 'utf8')).toBe(readFileSync(join(project.root, 'package.json'), 'utf8'));
    expect(existsSync(join(out, 'no-such.lock'))).toBe(false);
    expect(existsSync(join(out, '.git', 'refs', 'heads', 'main'))).toBe(true);
    expect(existsSync(join(out, 'README.md'))).toBe(false);
  });

  it('refuses a workspace larger than the disk limit, and leaves no folder behind', async () => {
    await expect(copyOutWorkspace(docker, container.id, { maxBytes: 1000 })).rejects.toMatchObject({ code: 'workspace.archive-refused' });
  });
});
