// /vm-create's clone of an SSH URL (the host's git and ssh agent against a real SSH server on 127.0.0.1) and of a local checkout
// (cloned, never mounted or changed), on a real project from the corpus.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneRepository } from '../../src/container/clone.js';
import { isCadreError } from '../../src/errors.js';
import { repositoryHost, repositoryLocation } from '../../src/git/repository-url.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { startSshGitServer, throwAwayKey, type SshGitServer } from '../support/ssh-git-server.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' }).trim();

let project: CorpusCopy;
let scratch: string;
let head: string;

beforeAll(() => {
  project = unpackCorpus('koa-typescript-rest');
  if (!existsSync(join(project.root, '.git'))) {
    git(project.root, 'init', '-q', '-b', 'main');
    git(project.root, 'add', '-A');
    git(project.root, 'commit', '-q', '-m', 'the project as pinned in the corpus');
  }
  head = git(project.root, 'rev-parse', 'HEAD');
  // Work the person has not committed: it stays theirs.
  writeFileSync(join(project.root, 'NOTES.local.md'), 'uncommitted notes\n');
  scratch = mkdtempSync(join(tmpdir(), 'cadre-clone-'));
});

afterAll(() => {
  project?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('what /vm-create accepts', () => {
  it('tells http(s), SSH and local paths apart, and refuses the rest with what to give', () => {
    expect(repositoryLocation('git@github.com:owner/repo.git', '/')).toEqual({ kind: 'ssh', url: 'git@github.com:owner/repo.git', host: 'github.com' });
    expect(repositoryLocation('ssh://git@git.example.org:2222/owner/repo.git', '/')).toMatchObject({ kind: 'ssh', host: 'git.example.org' });
    expect(repositoryLocation('https://github.com/owner/repo.git', '/')).toMatchObject({ kind: 'http', host: 'github.com' });
    expect(repositoryLocation('.', project.root)).toEqual({ kind: 'local', url: project.root, host: null });
    expect(repositoryLocation('./src/..', project.root)).toMatchObject({ kind: 'local', url: project.root });
    expect(repositoryHost('git@github.com:owner/repo.git')).toBe('github.com');
    expect(repositoryHost(project.root)).toBeNull();
    for (const bad of ['ftp://example.org/repo.git', '--upload-pack=touch /tmp/x', './src', 'not a url']) {
      let error: unknown;
      try {
        repositoryLocation(bad, project.root);
      } catch (caught) {
        error = caught;
      }
      expect(isCadreError(error) && error.code).toBe('vm.bad-repo-url');
      expect(isCadreError(error) && error.remedy).toMatch(/SSH URL .*local checkout/);
    }
  });
});

describe('a local checkout', () => {
  it('is cloned with its committed state; the checkout is neither changed nor sharing a file with the clone', async () => {
    const statusBefore = git(project.root, 'status', '--porcelain');
    const dir = join(scratch, 'local');
    const cloned = await cloneRepository({ url: repositoryLocation('.', project.root).url, dir });
    expect(cloned).toEqual({ branch: 'main', head });
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(readFileSync(join(project.root, 'package.json'), 'utf8'));
    expect(existsSync(join(dir, 'NOTES.local.md'))).toBe(false);
    // Objects are copied, not hard-linked: what the container does to its clone cannot reach the person's repository.
    const object = git(dir, 'rev-parse', 'HEAD').replace(/^(..)/, '$1/');
    const packed = existsSync(join(dir, '.git/objects', object));
    const anyObject = packed ? join(dir, '.git/objects', object) : join(dir, '.git/objects/pack', execFileSync('ls', [join(dir, '.git/objects/pack')], { encoding: 'utf8' }).split('\n')[0]!);
    expect(statSync(anyObject).nlink).toBe(1);
    writeFileSync(join(dir, 'package.json'), '{}\n');
    git(dir, 'commit', '-q', '-am', 'the agent was here');
    expect(git(project.root, 'status', '--porcelain')).toBe(statusBefore);
    expect(git(project.root, 'rev-parse', 'HEAD')).toBe(head);
  });
});

describe('an SSH URL, against a real SSH server on 127.0.0.1', () => {
  let server: SshGitServer;
  let agent: { socket: string; pid: string };
  let knownHosts: string;

  beforeAll(async () => {
    const bare = join(scratch, 'repos/acme/koa.git');
    execFileSync('git', ['clone', '-q', '--bare', project.root, bare]);
    const key = throwAwayKey();
    server = await startSshGitServer({ reposDir: join(scratch, 'repos'), authorizedKey: key.publicKey });
    knownHosts = join(scratch, 'known_hosts');
    writeFileSync(knownHosts, `${server.knownHostsLine}\n`);
    // The person's ssh agent, holding the throw-away key: the only place the key is, on the host.
    const socket = join(scratch, 'agent.sock');
    const started = execFileSync('ssh-agent', ['-a', socket, '-s'], { encoding: 'utf8' });
    agent = { socket, pid: /SSH_AGENT_PID=(\d+)/.exec(started)?.[1] ?? '' };
    const keyFile = join(scratch, 'id_throwaway');
    writeFileSync(keyFile, key.privateKey);
    chmodSync(keyFile, 0o600);
    const added = spawnSync('ssh-add', [keyFile], { env: { ...process.env, SSH_AUTH_SOCK: socket }, encoding: 'utf8' });
    expect(added.status, added.stderr).toBe(0);
    rmSync(keyFile);
  });

  afterAll(async () => {
    await server?.close();
    if (agent?.pid) process.kill(Number(agent.pid));
  });

  /** The person's own ssh settings: their known hosts; the key comes from their agent. */
  const sshEnv = (hosts: string) => ({
    ...process.env, SSH_AUTH_SOCK: agent.socket,
    GIT_SSH_COMMAND: `ssh -F /dev/null -o UserKnownHostsFile=${hosts} -o StrictHostKeyChecking=yes`,
  });

  it('is cloned by the host\'s git with the key from the ssh agent', async () => {
    const dir = join(scratch, 'ssh');
    const url = `ssh://git@127.0.0.1:${server.port}/acme/koa.git`;
    const cloned = await cloneRepository({ url, dir, env: sshEnv(knownHosts) });
    expect(cloned).toEqual({ branch: 'main', head });
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(readFileSync(join(project.root, 'package.json'), 'utf8'));
    expect(server.commands).toEqual(["git-upload-pack '/acme/koa.git'"]);
    // Nothing of the key travels with the workspace.
    expect(spawnSync('grep', ['-rl', 'PRIVATE KEY', dir], { encoding: 'utf8' }).stdout).toBe('');
  });

  it('a host whose key is unknown fails at once with ssh\'s words and what to do, never waiting for a prompt', async () => {
    const empty = join(scratch, 'known_hosts.empty');
    writeFileSync(empty, '');
    const started = Date.now();
    const error = await cloneRepository({ url: `ssh://git@127.0.0.1:${server.port}/acme/koa.git`, dir: join(scratch, 'unknown-host'), env: sshEnv(empty) }).catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(isCadreError(error) && error.code).toBe('clone-failed');
    expect(isCadreError(error) && error.message).toMatch(/Host key verification failed/);
    expect(isCadreError(error) && error.remedy).toMatch(/accept the host's key/);
  });
});
