// Support for the in-container gateway tests: the host's Node in a minimal image, the forwarder bundle, a sandbox-like container, a local npm registry.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import ts from 'typescript';
import { testDocker } from '../support/docker.js';
import { ensureMinimalImage } from '../support/docker-images.js';
import { containerGatewayEnv } from '../../src/gateway/container-env.js';
import type { ProviderKind } from '../../src/gateway/providers.js';
import { containerGatewaySocket } from '../../src/runner/forwarder.js';
import { startLocalServer } from './harness.js';
import type { Harness } from './harness.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Read-only binds that make the host's own Node (and npm) run in the busybox test image:
 * the binary, each shared library `ldd` names, and npm's folder, each at its host path.
 */
export async function hostNodeBinds(): Promise<{ binds: string[]; node: string; npmCli: string }> {
  const node = await realpath(process.execPath);
  const libraries = execFileSync('ldd', [node], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /(\/\S+)\s+\(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
  const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
  const binds = [`${node}:${node}:ro`, `${npmRoot}/npm:${npmRoot}/npm:ro`];
  for (const library of libraries) binds.push(`${await realpath(library)}:${library}:ro`);
  return { binds, node, npmCli: join(npmRoot, 'npm', 'bin', 'npm-cli.js') };
}

/** Transpiles the dependency-free forwarder into `dir` as ES modules, the way the runner bundle carries it. */
export async function writeForwarderBundle(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of ['forwarder', 'forwarder-main', 'forwarder-tunnel', 'tunnel-mux', 'tunnel-frames']) {
    const source = await readFile(join(repoRoot, 'src', 'runner', `${name}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    await writeFile(join(dir, `${name}.js`), outputText);
  }
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  return join(dir, 'forwarder-main.js');
}

export interface LocalRegistry {
  /** `http://localhost:PORT/`: a host name, so that it goes through the proxy and its allowlist. */
  url: string;
  packageName: string;
  close(): Promise<void>;
}

/** A local npm registry serving one package, `cadre-hello@1.0.0`. */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  const packageName = 'cadre-hello';
  const work = await mkdtemp(join(tmpdir(), 'cadre-registry-'));
  await mkdir(join(work, 'package'));
  await writeFile(join(work, 'package', 'package.json'), JSON.stringify({ name: packageName, version: '1.0.0', main: 'index.js' }));
  await writeFile(join(work, 'package', 'index.js'), "module.exports = 'hello through the gateway';\n");
  execFileSync('tar', ['--numeric-owner', '-czf', join(work, 'pkg.tgz'), '-C', work, 'package']);
  const tarball = await readFile(join(work, 'pkg.tgz'));
  await rm(work, { recursive: true, force: true });
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = createHash('sha1').update(tarball).digest('hex');
  let origin = '';
  const server = await startLocalServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (path === `/${packageName}`) {
      const version = { name: packageName, version: '1.0.0', main: 'index.js', dist: { tarball: `${origin}/${packageName}/-/${packageName}-1.0.0.tgz`, integrity, shasum } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: packageName, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } }));
    } else if (path === `/${packageName}/-/${packageName}-1.0.0.tgz`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tarball.length }).end(tarball);
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  origin = `http://localhost:${server.port}`;
  return { url: `${origin}/`, packageName, close: server.close };
}

/** Every file under `dir` whose bytes contain `needle`. */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(needle)) hits.push(path);
  }
  return hits;
}

export const forwarderPorts = { modelPort: 4100, proxyPort: 4101 } as const;
const nodeModules = fileURLToPath(new URL('../../node_modules', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface SandboxHost {
  docker: Docker;
  image: string;
  node: Awaited<ReturnType<typeof hostNodeBinds>>;
  /** Holds the forwarder bundle, mounted at /opt/cadre/runner. */
  runnerDir: string;
  close(): Promise<void>;
}

/** What the in-container gateway tests need once: the engine, the minimal image, the host's Node, the forwarder bundle. */
export async function prepareSandboxHost(): Promise<SandboxHost> {
  const docker = testDocker();
  const image = await ensureMinimalImage(docker);
  const node = await hostNodeBinds();
  const runnerDir = await mkdtemp(join(tmpdir(), 'cadre-runner-'));
  await chmod(runnerDir, 0o755);
  await writeForwarderBundle(join(runnerDir, 'runner'));
  return { docker, image, node, runnerDir, close: () => rm(runnerDir, { recursive: true, force: true }) };
}

/**
 * A sandbox-like container (no network, non-root, no capabilities, read-only root) whose main process is the forwarder
 * to `gateway`, with the host's Node, the SDKs and the fixtures at /opt/cadre. `cleanups` gets what to remove.
 */
export async function startGatewaySandbox(input: {
  host: SandboxHost; gateway: Harness; kind: ProviderKind; registry?: string; cleanups: Array<() => Promise<void>>;
}): Promise<{ container: Docker.Container; workspace: string }> {
  const { host: { docker, node }, gateway, cleanups } = input;
  const workspace = await mkdtemp(join(tmpdir(), 'cadre-ws-'));
  await chown(workspace, 1000, 1000);
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));
  // The test registry listens on the host's localhost, standing for a remote registry: inside this container localhost is
  // the container itself, which the real NO_PROXY exempts from the proxy, so here localhost goes through the proxy.
  const env = { ...containerGatewayEnv({ provider: input.kind, token: gateway.token, ...forwarderPorts }), NO_PROXY: '127.0.0.1,::1', no_proxy: '127.0.0.1,::1' };
  const container = await docker.createContainer({
    Image: input.host.image,
    Cmd: [node.node, '/opt/cadre/runner/forwarder-main.js', '--model-port', String(forwarderPorts.modelPort), '--proxy-port', String(forwarderPorts.proxyPort)],
    User: '1000:1000',
    WorkingDir: '/workspace',
    Env: [...Object.entries(env).map(([name, value]) => `${name}=${value}`), 'HOME=/tmp', ...(input.registry ? [`npm_config_registry=${input.registry}`] : [])],
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m' },
      Binds: [
        `${workspace}:/workspace:rw`,
        `${gateway.socketPath}:${containerGatewaySocket}`,
        `${join(input.host.runnerDir, 'runner')}:/opt/cadre/runner:ro`,
        `${nodeModules}:/opt/cadre/node_modules:ro`,
        `${fixtures}:/opt/cadre/fixtures:ro`,
        ...node.binds,
      ],
    },
    Labels: { 'cadre.test': 'gateway' },
  });
  cleanups.push(() => container.remove({ force: true }));
  await container.start();
  return { container, workspace };
}
