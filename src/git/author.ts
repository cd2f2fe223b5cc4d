// The commit author: cadre's config first, then GIT_AUTHOR_NAME/EMAIL, then the host user's global git config.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CadreError } from '../errors.js';

const run = promisify(execFile);

export interface Author {
  name: string;
  email: string;
}

type Env = Record<string, string | undefined>;

/**
 * `git config --global --get <key>` with only the variables that locate the global file:
 * never the workspace's own config, which the container can write.
 */
async function hostGitConfig(key: string, env: Env): Promise<string | undefined> {
  const locate = Object.fromEntries(
    ['HOME', 'XDG_CONFIG_HOME', 'PATH'].flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
  ) as Record<string, string>;
  try {
    const { stdout } = await run('git', ['config', '--global', '--get', key], { env: { ...locate, GIT_CONFIG_NOSYSTEM: '1' }, cwd: '/' });
    return stdout.trim() || undefined;
  } catch {
    // Not set, no global config file, or no git on the host: the caller reports what is missing.
    return undefined;
  }
}

/** Resolves the author of cadre's commits, or a `git.no-author` error saying how to set one. */
export async function resolveAuthor(options: { authorName?: string; authorEmail?: string; env: Env }): Promise<Author> {
  const { env } = options;
  const name = options.authorName || env.GIT_AUTHOR_NAME || (await hostGitConfig('user.name', env));
  const email = options.authorEmail || env.GIT_AUTHOR_EMAIL || (await hostGitConfig('user.email', env));
  if (name && email) return { name, email };
  const missing = [name ? undefined : 'name', email ? undefined : 'email'].filter(Boolean).join(' and ');
  throw new CadreError('git.no-author', `No commit author ${missing} is configured for cadre, and none is set in your git config.`, {
    remedy: 'set git.authorName and git.authorEmail in cadre config (or CADRE_GIT_AUTHOR_NAME / CADRE_GIT_AUTHOR_EMAIL), or run git config --global user.name "…" and user.email "…"',
  });
}
