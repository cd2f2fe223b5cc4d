// cadre against a second, real Docker engine in its own network namespace: TCP + mutual TLS from DOCKER_HOST, a docker context, vm.engine; /system-status says which, where, over what, and the round trip.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { describeRemoteEngine, engineSideClient, sharedRemoteEngine, sshdUnavailable, startEngineSshd, type RemoteEngine } from '../support/remote-engine.js';

const run = promisify(execFile);

interface StatusEvent {
  type: string;
  kind?: string;
  code?: string;
  message?: string;
  remedy?: string;
  data?: { reachable: boolean; engineId: string; engine: { source: string; context?: string; transport: string; host: string }; roundTrip: { medianMs: number; samplesMs: number[] }; engineVersion: string };
}

const events = (stdout: string): StatusEvent[] => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as StatusEvent);

/** A docker CLI context under `home/.docker`, as `docker context create NAME --docker host=…,ca=…,cert=…,key=…` writes it. */
async function writeContext(home: string, name: string, engine: RemoteEngine): Promise<void> {
  const id = createHash('sha256').update(name).digest('hex');
  const meta = join(home, '.docker', 'contexts', 'meta', id);
  const tls = join(home, '.docker', 'contexts', 'tls', id, 'docker');
  await mkdir(meta, { recursive: true });
  await mkdir(tls, { recursive: true });
  await writeFile(join(meta, 'meta.json'), JSON.stringify({ Name: name, Metadata: { Description: 'the build host' }, Endpoints: { docker: { Host: engine.host, SkipTLSVerify: false } } }));
  for (const file of ['ca.pem', 'cert.pem', 'key.pem']) await writeFile(join(tls, file), await readFile(join(engine.clientCertDir, file)), { mode: 0o600 });
}

describeRemoteEngine('a remote Docker engine (second dockerd, own network namespace, TCP + mutual TLS)', () => {
  let engine: RemoteEngine;
  let keyPem = '';

  beforeAll(async () => {
    engine = await sharedRemoteEngine();
    keyPem = (await readFile(join(engine.clientCertDir, 'key.pem'), 'utf8')).split('\n').filter((line) => line && !line.startsWith('-----')).join('');
  }, 120_000);

  const status = async (env: Record<string, string>, options: { home?: string; project?: string } = {}) => {
    const folders = await tempProject('cadre-remote-');
    const ran = await runCli(['--json', '-c', '/system-status --container-runtime'], { cwd: options.project ?? folders.project, home: options.home ?? folders.home, env });
    // Secrets never in output: the client key's contents appear nowhere, whatever happened.
    expect(ran.stdout + ran.stderr).not.toContain(keyPem.slice(0, 40));
    return { ran, events: events(ran.stdout) };
  };

  it('DOCKER_HOST tcp:// with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH: the remote engine, over TCP+TLS, with its round trip', { timeout: 60_000 }, async () => {
    const { ran, events: out } = await status(engine.env);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const result = out.find((event) => event.kind === 'system.status');
    expect(result?.data).toMatchObject({ reachable: true, engine: { source: 'DOCKER_HOST', transport: 'tcp+tls', host: engine.host } });
    expect(result!.data!.roundTrip.samplesMs).toHaveLength(5);
    expect(result!.data!.roundTrip.medianMs).toBeGreaterThan(0);
    const text = await runCli(['-c', '/system-status --container-runtime'], { cwd: (await tempProject()).project, home: (await tempProject()).home, env: engine.env });
    expect(text.stdout).toMatch(new RegExp(`answers at ${engine.host.replaceAll('.', '\\.')} over TCP\\+TLS \\(from DOCKER_HOST, mutual TLS\\)`));
    expect(text.stdout).toMatch(/round trip [\d.]+ ms \(median of 5 pings\)/);
    expect(text.stdout).toContain(join(engine.clientCertDir, 'key.pem'));
  });

  it('the docker CLI\'s current context (config.json + contexts/meta + tls), and DOCKER_CONTEXT over it', { timeout: 60_000 }, async () => {
    const { home } = await tempProject('cadre-remote-ctx-');
    await writeContext(home, 'build-host', engine);
    await writeFile(join(home, '.docker', 'config.json'), JSON.stringify({ auths: {}, currentContext: 'build-host' }));
    const current = await status({}, { home });
    expect(current.ran.code, current.ran.stdout + current.ran.stderr).toBe(0);
    expect(current.events.find((event) => event.kind === 'system.status')?.data).toMatchObject({ reachable: true, engine: { source: 'docker context', context: 'build-host', transport: 'tcp+tls', host: engine.host } });

    const named = await status({ DOCKER_CONTEXT: 'nowhere' }, { home });
    expect(named.ran.code).toBe(1);
    expect(named.events.find((event) => event.type === 'output.error')).toMatchObject({ code: 'docker-config', message: expect.stringMatching(/docker context "nowhere" \(from DOCKER_CONTEXT\) does not exist/), remedy: expect.stringMatching(/docker context ls/) });
  });

  it('vm.engine in the user\'s config names the engine; a project\'s untrusted .cadre/config.json cannot', { timeout: 90_000 }, async () => {
    const { home, project } = await tempProject('cadre-remote-cfg-');
    await writeContext(home, 'build-host', engine);
    await writeFile(join(home, 'config.json'), JSON.stringify({ vm: { engine: 'build-host' } }));
    const user = await status({}, { home, project });
    expect(user.events.find((event) => event.kind === 'system.status')?.data).toMatchObject({ reachable: true, engine: { source: 'vm.engine', context: 'build-host', host: engine.host } });

    const other = await tempProject('cadre-remote-cfg-');
    await writeContext(other.home, 'build-host', engine);
    await mkdir(join(other.project, '.cadre'), { recursive: true });
    await writeFile(join(other.project, '.cadre', 'config.json'), JSON.stringify({ vm: { engine: 'build-host' } }));
    const untrusted = await status({}, other);
    expect(untrusted.events.find((event) => event.kind === 'system.status')?.data?.engine).toMatchObject({ source: 'default', transport: 'unix' });
    expect(untrusted.ran.stdout).toContain('vm.engine');
  });

  it('a client certificate folder without the key: says which file is missing, not what is in the others', { timeout: 60_000 }, async () => {
    const { home } = await tempProject('cadre-remote-nokey-');
    const certs = join(home, 'certs');
    await mkdir(certs);
    for (const file of ['ca.pem', 'cert.pem']) await writeFile(join(certs, file), await readFile(join(engine.clientCertDir, file)));
    const { ran, events: out } = await status({ ...engine.env, DOCKER_CERT_PATH: certs }, { home });
    expect(ran.code).toBe(1);
    expect(out.find((event) => event.type === 'output.error')).toMatchObject({ code: 'docker-config', message: expect.stringContaining(join(certs, 'key.pem')), remedy: expect.stringMatching(/DOCKER_CERT_PATH/) });
    expect(ran.stdout).not.toContain('BEGIN CERTIFICATE');
  });
});

describeRemoteEngine('a remote Docker engine over ssh:// (Debian\'s sshd in the engine\'s namespaces, docker system dial-stdio)', () => {
  const missing = sshdUnavailable();
  if (missing && process.env.CADRE_REQUIRE_DOCKER !== '1') {
    it.skip(`needs sshd: ${missing}`, () => undefined);
    return;
  }
  let engine: RemoteEngine;
  let folders: { project: string; home: string };
  let agentPid = 0;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    engine = await sharedRemoteEngine();
    folders = await tempProject('cadre-remote-ssh-');
    const key = join(folders.home, 'id_ed25519');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cadre-test', '-f', key]);
    const sshd = await startEngineSshd(engine, { authorizedKey: await readFile(`${key}.pub`, 'utf8') });
    await writeFile(join(folders.home, 'known_hosts'), `${sshd.knownHostsLine}\n`);
    // The person's ssh agent holds the key; cadre's ssh finds it through SSH_AUTH_SOCK, as the docker CLI's does.
    const socket = join(folders.home, 'agent.sock');
    agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec((await run('ssh-agent', ['-s', '-a', socket])).stdout)?.[1]);
    await run('ssh-add', ['-q', key], { env: { ...process.env, SSH_AUTH_SOCK: socket } });
    Object.assign(env, { DOCKER_HOST: sshd.host, SSH_AUTH_SOCK: socket, CADRE_SSH_COMMAND: `ssh -F /dev/null -o UserKnownHostsFile=${join(folders.home, 'known_hosts')}` });
  }, 120_000);
  afterAll(() => {
    if (agentPid > 0) process.kill(agentPid);
  });

  it('reaches the remote engine through the person\'s ssh agent, and /system-status says ssh', { timeout: 60_000 }, async () => {
    const ran = await runCli(['--json', '-c', '/system-status --container-runtime'], { cwd: folders.project, home: folders.home, env });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const data = events(ran.stdout).find((event) => event.kind === 'system.status')?.data;
    expect(data).toMatchObject({ reachable: true, engine: { source: 'DOCKER_HOST', transport: 'ssh', host: env.DOCKER_HOST } });
    expect(data?.engineId).toBe((await engineSideClient(engine).info()).ID);
  });

  it('a refused key fails the command with what ssh said and what to do, and the process does not crash', { timeout: 60_000 }, async () => {
    const ran = await runCli(['--json', '-c', '/system-status --container-runtime'], { cwd: folders.project, home: folders.home, env: { ...env, SSH_AUTH_SOCK: join(folders.home, 'no-agent.sock') } });
    expect(ran.code).toBe(1);
    expect(events(ran.stdout).find((event) => event.type === 'output.error')).toMatchObject({
      code: 'docker-unreachable',
      message: expect.stringMatching(/ssh to .* ended \(exit code 255\) before the engine answered; ssh said: .*Permission denied/),
      remedy: expect.stringMatching(/ssh-add/),
    });
    expect(ran.stderr).not.toMatch(/uncaught|at .*\.js:\d+/i);
  });
});
