// The container's own folder in its workspace (/workspace/.cadre-tools): installed tools, HOME with every package manager's cache and store, and temp space — on the workspace's disk quota, where binaries may run, and kept out of git.
import type Docker from 'dockerode';
import type { OutputSink } from '../output.js';
import { execInContainer } from './exec.js';

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
