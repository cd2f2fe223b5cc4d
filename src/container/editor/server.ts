// code-server inside a sandbox container: its files under /workspace/.cadre-tools/editor, a detached start as the container's user, a stop by pidfile.
import { Duplex, PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { engineError } from '../docker-client.js';
import { CadreError } from '../../errors.js';
import { toolsPrefix } from '../dev-tools.js';
import { execInContainer, type ExecResult } from '../exec.js';
import { editorNode } from './volume.js';

/** The editor's folder in the container: the root filesystem is read-only and HOME is a tmpfs, the workspace is the one writable place that lasts. */
export const editorDir = `${toolsPrefix}/editor`;

export const editorFiles = {
  socket: `${editorDir}/editor.sock`,
  pid: `${editorDir}/editor.pid`,
  log: `${editorDir}/editor.log`,
  config: `${editorDir}/config.yaml`,
  userData: `${editorDir}/data`,
  extensions: `${editorDir}/extensions`,
} as const;

/** code-server's options shared by every run: its state in the workspace, and its own config file (the default one would be written to HOME). */
export const editorOptions = (entry: string): string[] =>
  [editorNode, entry, '--user-data-dir', editorFiles.userData, '--extensions-dir', editorFiles.extensions, '--config', editorFiles.config];

const shell = (script: string): string[] => ['sh', '-c', script];

/** Stops the editor server the pidfile names (any cadre process may have started it); resolves whether one was running. */
export async function stopEditorServer(docker: Docker, dockerId: string): Promise<boolean> {
  const ran = await execInContainer(docker, dockerId, shell([
    `pid=$(cat ${editorFiles.pid} 2>/dev/null) || exit 3`,
    `rm -f ${editorFiles.pid}`,
    'case "$pid" in ""|*[!0-9]*) exit 3;; esac',
    'kill "$pid" 2>/dev/null || exit 3',
    'i=0; while [ -d "/proc/$pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
    'kill -9 "$pid" 2>/dev/null',
    `rm -f ${editorFiles.socket}`,
    'exit 0',
  ].join('\n')), {});
  return ran.exitCode === 0;
}

/** The user settings of a first start: cadre's tools folder (the editor's own data included) out of sight. */
const editorSettings = { 'files.exclude': { '**/.cadre-tools': true }, 'search.exclude': { '**/.cadre-tools': true }, 'files.watcherExclude': { '**/.cadre-tools/**': true } };

/**
 * Creates the editor's folder and its config (password auth; the password itself comes from the environment, never a file),
 * and keeps the folder out of git. Done in the container: on the host, a symlink planted in the workspace could redirect a write.
 */
export async function prepareEditorDir(docker: Docker, dockerId: string): Promise<void> {
  const ran = await execInContainer(docker, dockerId, shell([
    `mkdir -p ${editorFiles.userData} ${editorFiles.extensions} .git/info`,
    `rm -f ${editorFiles.socket}`,
    `printf 'auth: password\\ncert: false\\n' > ${editorFiles.config}`,
    `grep -qxF '/.cadre-tools/' .git/info/exclude 2>/dev/null || echo '/.cadre-tools/' >> .git/info/exclude`,
    // The person's settings are kept; a first start hides cadre's own folder from the explorer and search.
    `mkdir -p ${editorFiles.userData}/User`,
    `{ [ -e ${editorFiles.userData}/User/settings.json ] || printf '%s\\n' '${JSON.stringify(editorSettings)}' > ${editorFiles.userData}/User/settings.json; }`,
  ].join(' && ')), {});
  if (ran.exitCode !== 0) {
    throw new CadreError('vm.editor-failed', `Cannot prepare ${editorDir} in the container: ${`${ran.stderr}${ran.stdout}`.trim().slice(-400)}`, {
      remedy: 'check that the workspace has free space (/vm-status), then run /vm-editor again',
    });
  }
}

/** Runs code-server once in the foreground with `args` (e.g. `--install-extension <id>`). */
export function runEditorCli(docker: Docker, dockerId: string, entry: string, args: string[]): Promise<ExecResult> {
  return execInContainer(docker, dockerId, [...editorOptions(entry), ...args], {});
}

/**
 * Starts code-server detached as the container's user, serving the workspace on the Unix socket (mode 600) with password
 * auth; `password` goes only into the process environment. Does not wait: see the caller's health check.
 */
export async function launchEditorServer(options: { docker: Docker; dockerId: string; entry: string; password: string }): Promise<void> {
  const serve = [
    ...editorOptions(options.entry), '--socket', editorFiles.socket, '--socket-mode', '600', '--auth', 'password',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '/workspace',
  ];
  try {
    const exec = await options.docker.getContainer(options.dockerId).exec({
      Cmd: shell(`echo $$ > ${editorFiles.pid} && exec "$@" > ${editorFiles.log} 2>&1`).concat('code-server', ...serve),
      WorkingDir: '/workspace',
      Env: [`PASSWORD=${options.password}`],
    });
    // The engine answers once the process has started; the connection would otherwise stay open and keep cadre from exiting.
    (await exec.start({ Detach: true })).destroy();
  } catch (error) {
    throw engineError(error, 'start the editor server in the container');
  }
}

/**
 * A relay from its standard input and output to the editor's socket, run inside the container for each connection. The host
 * never connects to the socket's path in the workspace itself: the container could swap that file for a symlink to any host
 * socket (the Docker socket, say). perl is in every Debian image; a relay costs a few megabytes and milliseconds.
 */
const relayScript = String.raw`use IO::Socket::UNIX; use IO::Select;
my $s = IO::Socket::UNIX->new(Peer => shift, Type => SOCK_STREAM) or exit 2;
binmode STDIN; binmode STDOUT;
sub put { my ($h, $d) = @_; while (length $d) { my $n = syswrite($h, $d); exit 0 unless $n; substr($d, 0, $n) = '' } }
my $sel = IO::Select->new(\*STDIN, $s);
while (my @ready = $sel->can_read) {
  for my $h (@ready) {
    my $n = sysread($h, my $buf, 65536);
    if ($h == $s) { exit 0 unless $n; put(\*STDOUT, $buf) }
    elsif ($n) { put($s, $buf) }
    else { $sel->remove(\*STDIN); shutdown($s, 1) }
  }
}`;

/** Opens one connection to the editor server: a relay exec'd in the container, its stdin and stdout as one stream. */
export async function openEditorPipe(docker: Docker, dockerId: string): Promise<Duplex> {
  const exec = await docker.getContainer(dockerId).exec({
    Cmd: ['perl', '-e', relayScript, editorFiles.socket], WorkingDir: '/workspace', AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false,
  });
  const stream = await exec.start({ hijack: true, stdin: true });
  const output = new PassThrough();
  docker.modem.demuxStream(stream, output, new PassThrough().resume());
  const ended = () => output.end();
  stream.once('end', ended).once('close', ended);
  return Duplex.from({ readable: output, writable: stream });
}

/** Whether the editor server the pidfile names is still running. */
export async function editorRunning(docker: Docker, dockerId: string): Promise<boolean> {
  const ran = await execInContainer(docker, dockerId, shell(`pid=$(cat ${editorFiles.pid} 2>/dev/null) && [ -n "$pid" ] && [ -d "/proc/$pid" ]`), {});
  return ran.exitCode === 0;
}

/** The last lines of the editor's log, read in the container (on the host, a symlink planted there could point anywhere). */
export async function editorLogTail(docker: Docker, dockerId: string, lines = 15): Promise<string> {
  const ran = await execInContainer(docker, dockerId, ['tail', '-n', String(lines), editorFiles.log], {});
  return (ran.exitCode === 0 && ran.stdout.trim()) || '(the log is empty)';
}
