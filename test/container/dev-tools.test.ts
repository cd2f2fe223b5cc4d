// excludeToolsFromGit in a real sandbox container: it edits .git/info/exclude as the container's user, so a link planted there never reaches a host file.
import { execFile } from 'node:child_process';
import { chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { OutputEvent } from '../../src/output.js';
import { excludeToolsFromGit } from '../../src/container/dev-tools.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const run = promisify(execFile);

describeDocker('excludeToolsFromGit', () => {
  const docker = testDocker();
  let dir = '';
  let workspace = '';
  let hostFile = '';
  let hostFolder = '';
  let container: Docker.Container;
  let events: OutputEvent[] = [];

  const exclude = () => excludeToolsFromGit({ docker, dockerId: container.id, onEvent: (event) => void events.push(event) });
  const warnings = () => events.flatMap((event) => (event.type === 'output.message' && event.level === 'warn' ? [event.text] : []));

  /** Hands the workspace to the sandbox user, as cadre does after cloning. */
  async function handOver(): Promise<void> {
    await run('chown', ['-R', '-h', '1000:1000', workspace]);
  }

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    dir = await mkdtemp(join(tmpdir(), 'cadre-dev-tools-'));
    workspace = join(dir, 'workspace');
    await mkdir(workspace);
    await chown(workspace, 1000, 1000);
    container = await docker.createContainer({
      Image: image, Cmd: ['sleep', 'infinity'], User: '1000:1000', WorkingDir: '/workspace', Env: ['HOME=/tmp'], NetworkDisabled: true,
      Labels: { 'cadre.test': 'vm-dev-tools' },
      HostConfig: { Binds: [`${workspace}:/workspace:rw`], NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], Tmpfs: { '/tmp': 'rw,size=16m' } },
    });
    await container.start();
  }, sandboxBuildTimeoutMs);
  afterAll(async () => {
    await container?.remove({ force: true });
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    events = [];
    for (const entry of await readdir(workspace)) await rm(join(workspace, entry), { recursive: true, force: true });
    await run('git', ['init', '-q', workspace]);
    hostFile = join(dir, 'host-file');
    hostFolder = join(dir, 'host-folder');
    await writeFile(hostFile, 'host data\n');
    await rm(hostFolder, { recursive: true, force: true });
    await mkdir(hostFolder);
  });

  it('adds /.cadre-tools/ once, after an unterminated last line, and git in the container then ignores the tools', async () => {
    await writeFile(join(workspace, '.git', 'info', 'exclude'), '# mine');
    await mkdir(join(workspace, '.cadre-tools', 'bin'), { recursive: true });
    await writeFile(join(workspace, '.cadre-tools', 'bin', 'tsc'), '#!/bin/sh\n');
    await writeFile(join(workspace, 'app.js'), '\n');
    await handOver();
    await exclude();
    await exclude();
    expect(await readFile(join(workspace, '.git', 'info', 'exclude'), 'utf8')).toBe('# mine\n/.cadre-tools/\n');
    expect((await execIn(docker, container, ['git', '-C', '/workspace', 'status', '--porcelain'])).stdout).toBe('?? app.js\n');
    expect(warnings()).toEqual([]);
  });

  it('creates .git/info when the clone has none, and leaves a folder that is no clone alone', async () => {
    await rm(join(workspace, '.git', 'info'), { recursive: true });
    await handOver();
    await exclude();
    expect(await readFile(join(workspace, '.git', 'info', 'exclude'), 'utf8')).toBe('/.cadre-tools/\n');

    await rm(join(workspace, '.git'), { recursive: true });
    await exclude();
    await expect(lstat(join(workspace, '.git'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(warnings()).toEqual([]);
  });

  const plants = [
    { what: '.git/info/exclude linked to a host file', warns: true, plant: async () => {
      await rm(join(workspace, '.git', 'info', 'exclude'));
      await symlink(hostFile, join(workspace, '.git', 'info', 'exclude'));
    } },
    { what: '.git/info linked to a host folder', warns: true, plant: async () => {
      await rm(join(workspace, '.git', 'info'), { recursive: true });
      await symlink(hostFolder, join(workspace, '.git', 'info'));
    } },
    { what: '.git linked to a host folder', warns: false, plant: async () => {
      await rm(join(workspace, '.git'), { recursive: true });
      await symlink(hostFolder, join(workspace, '.git'));
    } },
  ];
  for (const { what, warns, plant } of plants) {
    it(`never writes the host through ${what}${warns ? ', and warns that the tools will show as changes' : ' (the container sees no clone there: nothing to do)'}`, async () => {
      await handOver();
      await plant();
      await exclude();
      expect(await readFile(hostFile, 'utf8')).toBe('host data\n');
      expect(await readdir(hostFolder)).toEqual([]);
      if (!warns) expect(warnings()).toEqual([]);
      else expect(warnings()).toEqual([expect.stringMatching(/^Could not add \/\.cadre-tools\/ to \.git\/info\/exclude in the container \(exit [1-9]\d*: .+\); the installed tools, caches and temp files will show/)]);
    });
  }
});
