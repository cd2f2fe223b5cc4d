// The container's own folder in its workspace (/workspace/.cadre-tools): installed tools, HOME with every package manager's cache and store, and temp space — on the workspace's disk quota, where binaries may run, and kept out of git.
import { constants } from 'node:fs';
import { chown, lstat, mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { OutputSink } from '../output.js';
import { execInContainer } from './exec.js';
import { sandboxUser } from './workspace.js';

/** The workspace is the container's only persistent writable place, and its disk limit is the container's disk setting. */
export const cadreFolder = '/workspace/.cadre-tools';
export const toolsPrefix = cadreFolder;
export const imagePath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
export const toolsPath = `${toolsPrefix}/bin:${imagePath}`;

/**
 * The variables that keep package managers off the small noexec tmpfs at /tmp: HOME holds npm's cache, yarn's (v1 and
 * berry), pnpm's store and dlx cache and corepack's downloads under their default names, TMPDIR takes temp files, and npm's
 * cache is named outright because images set it to /tmp. pnpm's store then sits on the same filesystem as node_modules,
 * so it links instead of copying.
 */
export const cadreFolderEnv: Readonly<Record<string, string>> = {
  HOME: `${cadreFolder}/home`,
  TMPDIR: `${cadreFolder}/tmp`,
  npm_config_cache: `${cadreFolder}/home/.npm`,
  PATH: toolsPath,
};

const folderFailed = 3;

/** Makes HOME and TMPDIR, and adds `/.cadre-tools/` to .git/info/exclude once (keeping an unterminated last line intact); no exclude when /workspace is not a clone. */
const prepareScript = `set -e
mkdir -p "${cadreFolderEnv.HOME}" "${cadreFolderEnv.TMPDIR}" || exit ${folderFailed}
[ -d .git ] || exit 0
exclude=.git/info/exclude
if [ -f "$exclude" ] && grep -qxF '/.cadre-tools/' "$exclude"; then exit 0; fi
mkdir -p .git/info
if [ -s "$exclude" ] && [ -n "$(tail -c 1 "$exclude")" ]; then printf '\\n' >> "$exclude"; fi
printf '/.cadre-tools/\\n' >> "$exclude"`;

/**
 * Prepares the container's folder and keeps it out of the repository's changes (and out of /vm-create-pr). It runs in
 * the container as its user, never on the host: the container writes .git, so a link there resolves in the container's
 * own view and permissions. A failure is a warning that says what it breaks.
 */
export async function prepareCadreFolder(target: { docker: Docker; dockerId: string; onEvent: OutputSink }): Promise<boolean> {
  const ran = await execInContainer(target.docker, target.dockerId, ['sh', '-c', prepareScript], {});
  if (ran.exitCode === 0) return true;
  const detail = `exit ${ran.exitCode}: ${ran.stderr.trim().slice(-300)}`;
  target.onEvent({
    type: 'output.message',
    level: 'warn',
    text: ran.exitCode === folderFailed
      ? `Could not make HOME and TMPDIR under ${cadreFolder} in the container (${detail}); package managers and tests will lack temp space`
      : `Could not add /.cadre-tools/ to .git/info/exclude in the container (${detail}); the installed tools, caches and temp files will show as changes of the repository`,
  });
  return false;
}

/** A folder the sandbox user owns, made by cadre on the host; a link or anything else in its place is refused. */
async function sandboxFolder(path: string): Promise<void> {
  await mkdir(path, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  if (!(await lstat(path)).isDirectory()) throw new Error(`${path} is not a folder`);
  if (process.getuid?.() === 0) await chown(path, sandboxUser.uid, sandboxUser.gid);
}

/**
 * The same preparation as prepareCadreFolder, done on the host without a `docker exec` (about 0.1–0.4 s of /vm-create), for a
 * workspace cadre's host git has just cloned into and in which nothing but cadre's own forwarder has run yet: a new container,
 * or a warm-pool spare being taken. No link can be there (git writes none into .git/info), and none is followed.
 */
export async function prepareFreshCadreFolder(workspaceDir: string): Promise<void> {
  const folder = join(workspaceDir, '.cadre-tools');
  for (const path of [folder, join(folder, 'home'), join(folder, 'tmp')]) await sandboxFolder(path);
  const info = join(workspaceDir, '.git', 'info');
  if (!(await lstat(join(workspaceDir, '.git')).then((stat) => stat.isDirectory(), () => false))) return;
  await sandboxFolder(info);
  const exclude = join(info, 'exclude');
  const current = await readFile(exclude, 'utf8').catch(() => '');
  if (current.split('\n').includes('/.cadre-tools/')) return;
  const handle = await open(exclude, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(`${current && !current.endsWith('\n') ? '\n' : ''}/.cadre-tools/\n`);
    if (process.getuid?.() === 0) await handle.chown(sandboxUser.uid, sandboxUser.gid);
  } finally {
    await handle.close();
  }
}
