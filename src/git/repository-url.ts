// What /vm-create may clone: an http(s) URL, an SSH URL (`git@host:owner/repo.git`, `ssh://…`), or a local checkout (a path, `.`).
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { CadreError, exitCodes } from '../errors.js';

export type RepositoryLocation =
  | { kind: 'http'; url: string; host: string }
  | { kind: 'ssh'; url: string; host: string }
  /** `url` is the checkout's absolute path. */
  | { kind: 'local'; url: string; host: null };

const scpLike = /^(?:[\w.+-]+@)?([\w.-]+):(?!\/\/)(.+)$/;

function badUrl(text: string, why: string): CadreError {
  return new CadreError('vm.bad-repo-url', `"${text}" ${why}.`, {
    remedy: 'give an https URL (https://github.com/owner/repo.git), an SSH URL (git@github.com:owner/repo.git, ssh://git@host/owner/repo.git), or the path of a local checkout (. for this one)',
    exitCode: exitCodes.usage,
  });
}

/** A local path given to /vm-create: `.`, `./x`, `../x`, `/abs`, `~/x` or `file://`. */
function looksLocal(text: string): boolean {
  return text === '.' || text === '..' || /^(\.{1,2}\/|\/|~\/|file:\/\/)/.test(text);
}

/**
 * Classifies what the person typed. A local path is resolved against `cwd` and must be a git checkout (or a bare repository);
 * it is cloned, never mounted. Nothing here reaches the network.
 */
export function repositoryLocation(text: string, cwd: string): RepositoryLocation {
  const trimmed = text.trim();
  // An argument git would read as an option (--upload-pack=…) is never a repository.
  if (trimmed.startsWith('-')) throw badUrl(trimmed, 'is not a repository URL or path');
  if (looksLocal(trimmed)) {
    const path = trimmed.startsWith('file://') ? decodeURIComponent(new URL(trimmed).pathname)
      : trimmed.startsWith('~/') ? resolve(homedir(), trimmed.slice(2)) : resolve(cwd, trimmed);
    const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
    if (!isDir(path)) throw badUrl(trimmed, `is not a folder (${path})`);
    if (!isDir(resolve(path, '.git')) && !(isDir(resolve(path, 'objects')) && isDir(resolve(path, 'refs')))) {
      throw badUrl(trimmed, `is not a git checkout (${path} has no .git)`);
    }
    return { kind: 'local', url: path, host: null };
  }
  const scp = scpLike.exec(trimmed);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return { kind: 'ssh', url: trimmed, host: (scp[1] ?? '').toLowerCase() };
  const url = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
  if (url && /^https?:$/.test(url.protocol) && url.hostname) return { kind: 'http', url: trimmed, host: url.hostname.toLowerCase() };
  if (url && /^(ssh|git\+ssh):$/.test(url.protocol) && url.hostname) return { kind: 'ssh', url: trimmed, host: url.hostname.toLowerCase() };
  throw badUrl(trimmed, 'is not an http(s) or SSH repository URL, nor a local path');
}

/** Whether a recorded repository is a local checkout (recorded as its absolute path) rather than a URL. */
export function isLocalCheckout(recorded: string): boolean {
  return recorded.startsWith('/');
}

/** The repository's host, for the container's egress rules; null for a local checkout (or what cannot be parsed). */
export function repositoryHost(recorded: string): string | null {
  if (isLocalCheckout(recorded)) return null;
  const scp = scpLike.exec(recorded);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(recorded)) return (scp[1] ?? '').toLowerCase();
  return URL.canParse(recorded) ? new URL(recorded).hostname.toLowerCase() || null : null;
}
