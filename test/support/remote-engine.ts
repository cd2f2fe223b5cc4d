// A second, real Docker engine for remote-engine tests: its own containerd and dockerd in a network namespace joined by a veth, reached over TCP with mutual TLS, cadre's folders hidden (REMOTE-ENGINES.md §3).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { describe, it } from 'vitest';
import { withFileLock } from '../../src/container/file-lock.js';

const run = promisify(execFile);

/** Where engines keep their data-root, exec-root, containerd root and certificates: short, for unix socket paths, and not hidden from them. */
const enginesRoot = '/var/lib/cadre-remote-engines';
/** Where `.ci/run` unpacks Debian's openssh-server (apt-get download + dpkg -x), for the ssh:// tests. */
export const sshdPackageDir = process.env.CADRE_TEST_SSHD_DIR ?? '/var/cache/cadre-ci/openssh-server';

export interface RemoteEngine {
  /** The /30 slot: names the namespace, the veth pair and the cgroup parent. */
  slot: number;
  dir: string;
  /** The engine's address on the veth (the "remote host"), and cadre's side of the link. */
  address: string;
  hostAddress: string;
  /** tcp://address:2376 */
  host: string;
  /** ca.pem, cert.pem and key.pem of cadre's client certificate. */
  clientCertDir: string;
  /** DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH for a cadre process. */
  env: Record<string, string>;
  /** The engine's own unix socket (on this machine's disk; for the test's teardown and checks, never for cadre). */
  socket: string;
  netns: string;
  pids: { launcher: number; containerd: number; dockerd: number };
  /** Milliseconds from launch until the engine answered over TCP+TLS. */
  startupMs: number;
}

/** Why a remote engine cannot start here (not root, a program missing), or undefined when it can. */
export async function remoteEngineUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'a second engine needs root (network and mount namespaces, dockerd)';
  for (const program of ['dockerd', 'containerd', 'containerd-shim-runc-v2', 'runc', 'openssl', 'ip', 'nsenter', 'unshare', 'docker']) {
    if (!(await run('sh', ['-c', `command -v ${program}`]).then(() => true, () => false))) return `${program} is not installed (.ci/run installs it)`;
  }
  return undefined;
}

const slotAddress = (slot: number, last: 1 | 2): string => `10.203.${slot >> 6}.${(slot & 63) * 4 + last}`;

/** Claims a free /30 slot: `ip netns add` of the slot's name fails when another engine (of any run) holds it. */
async function claimSlot(): Promise<number> {
  const used = (await run('ip', ['-br', 'addr'])).stdout;
  for (let attempt = 0; attempt < 64; attempt += 1) {
    const slot = 1 + ((process.pid * 31 + attempt * 97) % 16000);
    if (used.includes(`${slotAddress(slot, 1)}/`)) continue;
    if (await run('ip', ['netns', 'add', `cadre-re-${slot}`]).then(() => true, () => false)) return slot;
  }
  throw new Error('no free 10.203.0.0/16 slot for a remote engine');
}

async function openssl(dir: string, args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

/** A CA, a server certificate for the engine's address, and a client certificate for cadre; EC keys, for speed. */
async function makeCertificates(dir: string, address: string): Promise<void> {
  await mkdir(join(dir, 'client'), { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(dir, ['req', '-x509', ...ec, '-days', '2', '-subj', '/CN=cadre-remote-engine-ca', '-keyout', 'ca-key.pem', '-out', 'ca.pem']);
  for (const [name, usage, san] of [['server', 'serverAuth', `subjectAltName=IP:${address}\n`], ['client', 'clientAuth', '']] as const) {
    await writeFile(join(dir, `${name}.ext`), `${san}extendedKeyUsage=${usage}\n`);
    await openssl(dir, ['req', ...ec, '-subj', `/CN=cadre-remote-engine-${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`]);
    await openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}-cert.pem`]);
  }
  await run('cp', [join(dir, 'ca.pem'), join(dir, 'client', 'ca.pem')]);
  await run('cp', [join(dir, 'client-cert.pem'), join(dir, 'client', 'cert.pem')]);
  await run('cp', [join(dir, 'client-key.pem'), join(dir, 'client', 'key.pem')]);
}

const containerdConfig = (dir: string): string => `version = 2
root = "${dir}/containerd/root"
state = "${dir}/containerd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "${dir}/containerd/containerd.sock"
[ttrpc]
  address = "${dir}/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/containerd/opt"
`;

/**
 * Runs in the engine's network namespace and a private mount namespace: an empty /tmp, /work, /root and /home hide
 * cadre's folders (homes, workspaces, the checkout), an empty /run hides this machine's engine sockets, an empty
 * /etc/docker gives the engine an ID of its own, then
 * containerd and dockerd start with everything of their own.
 */
const innerScript = (engine: { dir: string; slot: number; address: string }): string => `#!/bin/sh
set -e
W=${engine.dir}
for hidden in /tmp /work /root /home /run; do
  if [ -d "$hidden" ]; then mount -t tmpfs -o mode=755,size=64m tmpfs "$hidden"; fi
done
chmod 1777 /tmp
# The engine's ID comes from /etc/docker/key.json: the remote host has its own, so the two engines are told apart.
mkdir -p /etc/docker && mount -t tmpfs -o mode=755,size=1m tmpfs /etc/docker
mkdir -p /run/sshd
mount --bind "$W/passwd" /etc/passwd
containerd --config "$W/containerd.toml" >"$W/containerd.log" 2>&1 &
echo $! >"$W/containerd.pid"
for _ in $(seq 1 100); do [ -S "$W/containerd/containerd.sock" ] && break; sleep 0.05; done
dockerd --config-file "$W/daemon.json" --data-root "$W/data" --exec-root "$W/exec" --pidfile "$W/dockerd.pid" \\
  --containerd "$W/containerd/containerd.sock" --cgroup-parent /cadre-re-${engine.slot} \\
  --bip 10.204.0.1/24 --default-address-pool base=10.205.0.0/16,size=24 \\
  -H "unix://$W/docker.sock" -H tcp://${engine.address}:2376 \\
  --tlsverify --tlscacert "$W/ca.pem" --tlscert "$W/server-cert.pem" --tlskey "$W/server-key.pem" >"$W/dockerd.log" 2>&1 &
wait
`;

/** Everything by PID or by this engine's own names: dockerd (it stops its containers), containerd, sshd, the launcher, cgroups, the namespace, the folder. */
const teardownScript = (engine: { dir: string; slot: number; state?: string }): string => `#!/bin/sh
W=${engine.dir}
stop() { pid=$(cat "$1" 2>/dev/null) || return 0; [ -n "$pid" ] || return 0; kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done; kill -9 "$pid" 2>/dev/null; }
stop "$W/sshd/sshd.pid"
stop "$W/dockerd.pid"
stop "$W/containerd.pid"
stop "$W/launcher.pid"
for controller in /sys/fs/cgroup/*/cadre-re-${engine.slot}; do
  [ -d "$controller" ] || continue
  find "$controller" -depth -type d -exec rmdir {} \\; 2>/dev/null
done
ip netns del cadre-re-${engine.slot} 2>/dev/null
rm -rf "$W"${engine.state ? ` "${engine.state}"` : ''}
`;

async function waitForEngine(engine: RemoteEngine, timeoutMs: number): Promise<void> {
  const docker = new Docker({
    host: engine.address,
    port: 2376,
    protocol: 'https',
    ca: await readFile(join(engine.clientCertDir, 'ca.pem')),
    cert: await readFile(join(engine.clientCertDir, 'cert.pem')),
    key: await readFile(join(engine.clientCertDir, 'key.pem')),
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await docker.ping().then(() => true, () => false)) return;
    if (Date.now() > deadline) {
      const log = await readFile(join(engine.dir, 'dockerd.log'), 'utf8').catch(() => '');
      throw new Error(`the remote engine did not answer within ${timeoutMs} ms; dockerd said:\n${log.slice(-2000)}`);
    }
    await sleep(100);
  }
}

const readPid = async (path: string): Promise<number> => Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);

/**
 * Starts an engine of its own (stop it with stopRemoteEngine). A watcher tears it down when `owner` (this process by
 * default) exits, so a crashed test leaves nothing behind.
 */
export async function startRemoteEngine(options: { owner?: number; /** A file that names the engine, removed with it. */ state?: string } = {}): Promise<RemoteEngine> {
  const unavailable = await remoteEngineUnavailable();
  if (unavailable) throw new Error(`cannot start a remote engine: ${unavailable}`);
  const slot = await claimSlot();
  const dir = join(enginesRoot, String(slot));
  const netns = `cadre-re-${slot}`;
  const [address, hostAddress] = [slotAddress(slot, 2), slotAddress(slot, 1)];
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'containerd'), { recursive: true });
  await writeFile(join(dir, 'teardown.sh'), teardownScript({ dir, slot, ...(options.state ? { state: options.state } : {}) }), { mode: 0o755 });
  const owner = options.owner ?? process.pid;
  // The watcher outlives this process on purpose: it is what tears the engine down if the tests die.
  spawn('sh', ['-c', `while kill -0 ${owner} 2>/dev/null; do sleep 1; done; exec sh ${dir}/teardown.sh`], { detached: true, stdio: 'ignore' }).unref();
  const [host, peer] = [`crh${slot}`, `crr${slot}`];
  await run('ip', ['link', 'add', host, 'type', 'veth', 'peer', 'name', peer]);
  await run('ip', ['link', 'set', peer, 'netns', netns]);
  await run('ip', ['addr', 'add', `${hostAddress}/30`, 'dev', host]);
  await run('ip', ['link', 'set', host, 'up']);
  await run('ip', ['netns', 'exec', netns, 'sh', '-c', `ip addr add ${address}/30 dev ${peer} && ip link set ${peer} up && ip link set lo up`]);
  await makeCertificates(dir, address);
  const passwd = await readFile('/etc/passwd', 'utf8');
  await writeFile(join(dir, 'passwd'), /^sshd:/m.test(passwd) ? passwd : `${passwd.trimEnd()}\nsshd:x:64999:65534:sshd privilege separation:/run/sshd:/usr/sbin/nologin\n`);
  await writeFile(join(dir, 'containerd.toml'), containerdConfig(dir));
  await writeFile(join(dir, 'daemon.json'), '{}\n');
  await writeFile(join(dir, 'inner.sh'), innerScript({ dir, slot, address }), { mode: 0o755 });
  const started = performance.now();
  // nsenter --net, not `ip netns exec`, which remounts /sys and loses the cgroup mounts dockerd needs.
  const launcher = spawn('setsid', ['nsenter', `--net=/var/run/netns/${netns}`, 'unshare', '-m', '--propagation', 'private', join(dir, 'inner.sh')], {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  launcher.unref();
  await writeFile(join(dir, 'launcher.pid'), String(launcher.pid));
  const clientCertDir = join(dir, 'client');
  const engine: RemoteEngine = {
    slot, dir, address, hostAddress, host: `tcp://${address}:2376`, clientCertDir, netns,
    env: { DOCKER_HOST: `tcp://${address}:2376`, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: clientCertDir },
    socket: join(dir, 'docker.sock'),
    pids: { launcher: launcher.pid ?? 0, containerd: 0, dockerd: 0 },
    startupMs: 0,
  };
  await waitForEngine(engine, 60_000);
  engine.startupMs = Math.round(performance.now() - started);
  engine.pids.containerd = await readPid(join(dir, 'containerd.pid'));
  engine.pids.dockerd = await readPid(join(dir, 'dockerd.pid'));
  return engine;
}

/** Tears an engine down now (its watcher then finds nothing left). */
export async function stopRemoteEngine(engine: RemoteEngine): Promise<void> {
  await run('sh', [join(engine.dir, 'teardown.sh')]).catch(() => undefined);
}

export interface EngineSshd {
  /** ssh://root@address:22, the engine's host as the docker CLI would name it. */
  host: string;
  /** A known_hosts line for the server's own host key. */
  knownHostsLine: string;
}

/** Why Debian's sshd cannot run here (not unpacked by .ci/run), or undefined. */
export function sshdUnavailable(): string | undefined {
  return existsSync(join(sshdPackageDir, 'usr', 'sbin', 'sshd')) ? undefined : `no sshd unpacked at ${sshdPackageDir} (.ci/run: apt-get download openssh-server libwrap0 + dpkg -x)`;
}

/**
 * Starts Debian's sshd in the engine's namespaces (its own config, host key and authorized key; root by key only), where
 * \`docker system dial-stdio\` reaches this engine's socket, never this machine's (hidden there). Stopped with the engine.
 */
export async function startEngineSshd(engine: RemoteEngine, options: { authorizedKey: string }): Promise<EngineSshd> {
  const unavailable = sshdUnavailable();
  if (unavailable) throw new Error(unavailable);
  const dir = join(engine.dir, 'sshd');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await rm(join(dir, 'host_key'), { force: true });
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'engine-host', '-f', join(dir, 'host_key')]);
  await writeFile(join(dir, 'authorized_keys'), `${options.authorizedKey.trim()}\n`, { mode: 0o600 });
  await writeFile(join(dir, 'sshd_config'), [
    `ListenAddress ${engine.address}:22`,
    `HostKey ${join(dir, 'host_key')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    `SetEnv DOCKER_HOST=unix://${engine.socket}`,
    '',
  ].join('\n'));
  const sshd = join(sshdPackageDir, 'usr', 'sbin', 'sshd');
  const log = join(dir, 'sshd.log');
  // In the engine's mount namespace (through containerd's pid): its /run is its own, so /run/sshd and the hidden sockets are there.
  await run('sh', ['-c', `LD_LIBRARY_PATH=${join(sshdPackageDir, 'usr', 'lib', 'x86_64-linux-gnu')} nsenter -t ${engine.pids.containerd} -m -n ${sshd} -f ${join(dir, 'sshd_config')} -E ${log}`]);
  const deadline = Date.now() + 10_000;
  while (!existsSync(join(dir, 'sshd.pid'))) {
    if (Date.now() > deadline) throw new Error(`sshd did not start: ${await readFile(log, 'utf8').catch(() => '')}`);
    await sleep(50);
  }
  const hostKey = (await readFile(join(dir, 'host_key.pub'), 'utf8')).trim().split(' ').slice(0, 2).join(' ');
  return { host: `ssh://root@${engine.address}:22`, knownHostsLine: `${engine.address} ${hostKey}` };
}

/** The vitest run's process: forks workers are its children, and the shared engine lives as long as it does. */
const runOwner = (): number => (process.env.VITEST ? process.ppid : process.pid);

/** The engine every remote test of this run shares: started once (under a lock), torn down when the run ends. */
export async function sharedRemoteEngine(): Promise<RemoteEngine> {
  const owner = runOwner();
  const state = join(tmpdir(), `cadre-remote-engine-${owner}.json`);
  return withFileLock(`${state}.lock`, async () => {
    const known = JSON.parse(await readFile(state, 'utf8').catch(() => 'null')) as RemoteEngine | null;
    if (known && existsSync(known.socket) && (await run('kill', ['-0', String(known.pids.dockerd)]).then(() => true, () => false))) return known;
    const engine = await startRemoteEngine({ owner, state });
    await writeFile(state, JSON.stringify(engine));
    return engine;
  });
}

/** A client on the engine's own unix socket, for the test's own checks (what is on the engine), never for cadre. */
export function engineSideClient(engine: RemoteEngine): Docker {
  return new Docker({ socketPath: engine.socket });
}

const unavailable = await remoteEngineUnavailable();

/** A describe block that needs a second engine: skipped with the reason where it cannot start, failing instead under CADRE_REQUIRE_DOCKER=1. */
export function describeRemoteEngine(name: string, body: () => void): void {
  if (!unavailable) describe(name, body);
  else if (process.env.CADRE_REQUIRE_DOCKER === '1') {
    describe(name, () => {
      it('needs a second Docker engine', () => {
        throw new Error(`${unavailable}; CADRE_REQUIRE_DOCKER=1 forbids skipping`);
      });
    });
  } else describe.skip(`${name} (skipped: ${unavailable})`, body);
}
