// The editor server's volume: code-server built once into a named Docker volume, mounted read-only at /opt/editor in every sandbox container.
//
// code-server's npm package compiles native modules against the container's Node.js (18, Debian), so it is built in a
// throw-away container of the sandbox image that has the network (the default bridge) and build tools, never in a sandbox
// container. It is built into a temporary folder of the volume and renamed into place only once it runs: a container
// never sees half an editor, and an interrupted build leaves only a temporary folder the next build removes.
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { CadreError } from '../../errors.js';
import type { OutputSink } from '../../output.js';
import { engineError } from '../docker-client.js';
import { withFileLock } from '../file-lock.js';

/** The Node code-server runs on: Debian's Node 18 in the sandbox image (code-server 4.89 requires 18; the image's default is newer). */
export const editorNode = '/usr/bin/node';

export const editorMountPath = '/opt/editor';

export const editorRecipe = {
  name: 'code-server',
  /** The last line whose engines field names Node.js 18, the sandbox image's Node.js. */
  version: '4.89.1',
  /** Bumped when the build script changes, so an editor built by an earlier script is rebuilt. */
  revision: 2,
  /** Debian packages the native modules need to compile (removed with the build container). */
  buildPackages: ['build-essential', 'python3', 'libnode-dev', 'pkg-config', 'libkrb5-dev', 'libx11-dev', 'libxkbfile-dev', 'libsecret-1-dev'],
} as const;

/** Where code-server is installed in the editor volume (its `.complete` marks a whole install). */
export const editorInstallDir = `${editorMountPath}/${editorRecipe.name}-${editorRecipe.version}`;
/** code-server's entry point in the container: run it with `node`. */
export const editorEntry = `${editorInstallDir}/lib/node_modules/${editorRecipe.name}/out/node/entry.js`;

/** The volume for the editor built on `image` (the native modules are tied to that image's Node.js and C library). */
export function editorVolumeName(image: string): string {
  const key = createHash('sha256').update(`${image}\n${JSON.stringify(editorRecipe)}`).digest('hex').slice(0, 12);
  return `cadre-editor-${key}`;
}

/** The bind every sandbox container gets: the editor volume, read-only (empty until the first /vm-editor builds it). */
export function editorVolumeBind(image: string): string {
  return `${editorVolumeName(image)}:${editorMountPath}:ro`;
}

/**
 * code-server 4.89 loads @vscode/ripgrep with require(). A global npm install does not follow code-server's shrinkwrap, so
 * its nested install brings the current @vscode/ripgrep, an ES module whose binary comes from a platform package on npm
 * (the pinned 1.15 line downloads rg from GitHub instead, which the registries do not serve). The extension host then
 * cannot load it and restarts in a loop. This replaces the module's entry with CommonJS that resolves the same binary.
 */
function ripgrepShim(vscodeDir: string): string[] {
  const module = `${vscodeDir}/node_modules/@vscode/ripgrep`;
  const entry = "module.exports.rgPath = require.resolve('@vscode/ripgrep-' + process.platform + '-' + process.arch + '/bin/rg');\n";
  const manifest = "const f = process.argv[1]; const p = JSON.parse(require('fs').readFileSync(f, 'utf8')); delete p.type; delete p.exports; p.main = './lib/index.cjs'; require('fs').writeFileSync(f, JSON.stringify(p, null, 2));";
  return [
    `if grep -q '"type": *"module"' ${module}/package.json; then`,
    `  printf '%s' ${shellQuote(entry)} > ${module}/lib/index.cjs`,
    `  node -e ${shellQuote(manifest)} ${module}/package.json`,
    'fi',
  ];
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The build script run as root in the build container; `cadre-phase:` lines tell which step a failure belongs to. */
export function editorBuildScript(): string {
  const temporary = `${editorMountPath}/.build-${randomBytes(4).toString('hex')}`;
  return [
    'set -eu',
    // One ordered stream: the engine sends stdout and stderr as separate frames, and a shell's "sh: " on stderr could land
    // in the middle of a phase line on stdout (seen under load: the failure was then put on the wrong step).
    'exec 2>&1',
    // Debian's Node 18 first on PATH: code-server 4.89 requires it (the image's default Node is newer).
    'export PATH=/usr/bin:/bin:/usr/local/bin',
    `if [ -f ${editorInstallDir}/.complete ]; then exit 0; fi`,
    `rm -rf ${editorMountPath}/.build-*`,
    'echo "cadre-phase: apt"',
    'apt-get update -q',
    `DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${editorRecipe.buildPackages.join(' ')}`,
    'echo "cadre-phase: npm"',
    `npm_config_nodedir=/usr npm install --global --unsafe-perm --no-fund --no-audit --prefix ${temporary} ${editorRecipe.name}@${editorRecipe.version}`,
    ...ripgrepShim(`${temporary}/lib/node_modules/${editorRecipe.name}/lib/vscode`),
    'echo "cadre-phase: check"',
    `HOME=/tmp ${editorNode} ${temporary}/lib/node_modules/${editorRecipe.name}/out/node/entry.js --version`,
    `cd ${temporary}/lib/node_modules/${editorRecipe.name}/lib/vscode && "$(${editorNode} -p "require('@vscode/ripgrep').rgPath")" --version && cd /tmp`,
    `chmod -R a+rX ${temporary}`,
    `rm -rf ${editorInstallDir}`,
    `mv ${temporary} ${editorInstallDir}`,
    `touch ${editorInstallDir}/.complete`,
  ].join('\n');
}

export interface EditorBuildOptions {
  docker: Docker;
  /** The sandbox image the containers run (the build uses it, so the native modules match). */
  image: string;
  onEvent: OutputSink;
  /** The registry the host's npm names; the build's npm asks it. */
  registry?: string;
  /** The host's CA bundle for package managers, mounted read-only into the build container. */
  caBundle?: string;
  /** The image has that bundle at /etc/cadre/host-ca.crt already (baked in for an engine on another machine, where no bind reaches). */
  caInImage?: boolean;
  /** Proxy settings of the host, passed to the build container. */
  env?: NodeJS.ProcessEnv;
}

const phaseLabels: Record<string, string> = {
  apt: 'Installing the build tools code-server needs (Debian packages)',
  npm: `Installing ${editorRecipe.name} ${editorRecipe.version} from the npm registry and compiling its native modules`,
  check: `Checking that ${editorRecipe.name} runs`,
};

/** Whether the editor is already in the volume (a short container of the sandbox image, no network, read-only). */
export async function editorPresent(docker: Docker, image: string): Promise<boolean> {
  const { exitCode } = await runContainer(docker, {
    Image: image, Cmd: ['test', '-f', `${editorInstallDir}/.complete`], User: '1000:1000', NetworkDisabled: true,
    HostConfig: { Binds: [editorVolumeBind(image)], NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], AutoRemove: false },
  });
  return exitCode === 0;
}

/** Runs a container to its end, collecting its output; `onLine` sees each line as it comes. Always removes the container. */
async function runContainer(docker: Docker, create: Docker.ContainerCreateOptions, onLine?: (line: string) => void): Promise<{ exitCode: number; output: string }> {
  let container: Docker.Container | undefined;
  try {
    container = await docker.createContainer({ ...create, Labels: { 'cadre.purpose': 'editor-build' } });
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const lines = new PassThrough();
    let output = '';
    let partial = '';
    lines.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-20_000);
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) onLine?.(line);
    });
    docker.modem.demuxStream(stream, lines, lines);
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    return { exitCode: StatusCode, output };
  } catch (error) {
    throw engineError(error, 'run the editor build container');
  } finally {
    await container?.remove({ force: true }).catch(() => undefined);
  }
}

/** The environment of the build container: the host's registry, CA bundle and proxies (never a credential of cadre). */
function buildEnv(options: EditorBuildOptions): string[] {
  const env: Record<string, string> = { DEBIAN_FRONTEND: 'noninteractive', HOME: '/tmp' };
  if (options.registry) env.npm_config_registry = options.registry;
  if (options.caBundle || options.caInImage) Object.assign(env, { NODE_EXTRA_CA_CERTS: '/etc/cadre/host-ca.crt', npm_config_cafile: '/etc/cadre/host-ca.crt' });
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']) {
    const value = options.env?.[name];
    if (value) env[name] = value;
  }
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

/** The failure of a build, told by the step that failed, with the end of its output. */
function buildFailure(phase: string, exitCode: number, output: string): CadreError {
  const tail = output.trim().split('\n').slice(-12).join('\n');
  const what = phase === 'apt'
    ? 'the Debian packages needed to compile it could not be installed (the build container reaches the Debian registry through Docker\'s default bridge network)'
    : phase === 'npm'
      ? `npm could not install ${editorRecipe.name}@${editorRecipe.version} from the registry the host's npm names, or its native modules did not compile`
      : phase === 'check' ? `the built ${editorRecipe.name} does not start` : 'the build did not start';
  return new CadreError('vm.editor-build-failed', `The editor server could not be built (exit ${exitCode}): ${what}. Nothing was installed.\n${tail}`, {
    remedy: 'check that containers on Docker\'s default bridge reach the package registries (`npm ping` on the host, proxy settings in HTTP_PROXY/HTTPS_PROXY), then run /vm-editor again',
  });
}

/**
 * Builds code-server into the editor volume for `image` unless it is there; concurrent cadre processes build it once.
 * Returns the in-container path of its entry point and whether this call built it.
 */
export async function ensureEditorVolume(options: EditorBuildOptions): Promise<{ entry: string; built: boolean }> {
  const { docker, image, onEvent } = options;
  if (await editorPresent(docker, image)) return { entry: editorEntry, built: false };
  const volume = editorVolumeName(image);
  return withFileLock(join(tmpdir(), `${volume}.lock`), async () => {
    if (await editorPresent(docker, image)) return { entry: editorEntry, built: false };
    onEvent({ type: 'output.message', text: `Building the editor server (${editorRecipe.name} ${editorRecipe.version}) into the volume ${volume}: first use only, about two minutes.`, level: 'warn' });
    let phase = 'start';
    const { exitCode, output } = await runContainer(docker, {
      Image: image,
      Cmd: ['sh', '-c', editorBuildScript()],
      User: '0:0',
      Env: buildEnv(options),
      WorkingDir: '/tmp',
      HostConfig: {
        Binds: [`${volume}:${editorMountPath}:rw`, ...(options.caBundle ? [`${options.caBundle}:/etc/cadre/host-ca.crt:ro`] : [])],
        NetworkMode: 'bridge',
        SecurityOpt: ['no-new-privileges'],
      },
    }, (line) => {
      const marker = /^cadre-phase: (\w+)/.exec(line);
      if (!marker) return;
      if (phase in phaseLabels) onEvent({ type: 'output.progress', id: `editor-build:${phase}`, label: phaseLabels[phase]!, done: true });
      phase = marker[1]!;
      onEvent({ type: 'output.progress', id: `editor-build:${phase}`, label: phaseLabels[phase] ?? phase });
    });
    if (exitCode !== 0) throw buildFailure(phase, exitCode, output);
    if (phase in phaseLabels) onEvent({ type: 'output.progress', id: `editor-build:${phase}`, label: phaseLabels[phase]!, done: true });
    if (!(await editorPresent(docker, image))) throw buildFailure('check', exitCode, output);
    return { entry: editorEntry, built: true };
  });
}
