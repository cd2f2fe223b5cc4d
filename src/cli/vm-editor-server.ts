// code-server inside a sandbox container: its files under /workspace/.cadre-tools/editor, a detached start as the container's user, a stop by pidfile.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { engineError } from '../container/docker-client.js';
import { CadreError } from '../errors.js';
import { toolsPrefix } from './vm-dev-tools.js';
import { execInContainer, type ExecResult } from './vm-exec.js';

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

/** Where a file of the editor's folder is on the host (the workspace is a bind of `workspaceDir`). */
export const onHost = (workspaceDir: string, containerPath: string): string => join(workspaceDir, containerPath.slice('/workspace/'.length));

/** code-server's options shared by every run: its state in the workspace, and its own config file (the default one would be written to HOME). */
export const editorOptions = (entry: string): string[] =>
  ['node', entry, '--user-data-dir', editorFiles.userData, '--extensions-dir', editorFiles.extensions, '--config', editorFiles.config];

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

/** Creates the editor's folder and its config (password auth; the password itself comes from the environment, never a file). */
export async function prepareEditorDir(docker: Docker, dockerId: string): Promise<void> {
  const ran = await execInContainer(docker, dockerId, shell(
    `mkdir -p ${editorFiles.userData} ${editorFiles.extensions} && rm -f ${editorFiles.socket} && printf 'auth: password\\ncert: false\\n' > ${editorFiles.config}`,
  ), {});
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

/** Whether the editor server the pidfile names is still running. */
export async function editorRunning(docker: Docker, dockerId: string): Promise<boolean> {
  const ran = await execInContainer(docker, dockerId, shell(`pid=$(cat ${editorFiles.pid} 2>/dev/null) && [ -n "$pid" ] && [ -d "/proc/$pid" ]`), {});
  return ran.exitCode === 0;
}

/** The last lines of the editor's log, read on the host, for an error message. */
export async function editorLogTail(workspaceDir: string, lines = 15): Promise<string> {
  const log = await readFile(onHost(workspaceDir, editorFiles.log), 'utf8').catch(() => '');
  return log.trim().split('\n').slice(-lines).join('\n') || '(the log is empty)';
}
