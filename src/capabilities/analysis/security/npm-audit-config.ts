// What `npm audit` would do for a project, read from npm's own configuration: which registry it asks, whether its
// `audit` and `offline` settings allow asking, and the credential npm would send there (never logged or reported).
import { lstat, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { packageManagerAnswer, packageManagerSetting } from '../../../gateway/host-package-config.js';

export type NpmAuditConfig =
  | { kind: 'ask'; registry: URL; authorization: string | null }
  | { kind: 'skip'; reason: string };

/** npm prints one `key=value` line per key when asked for several. */
function settingsOf(answer: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of answer.split(/\r?\n/)) {
    const at = line.indexOf('=');
    if (at > 0) settings.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return settings;
}

const settingsQuery = ['config', 'get', 'registry', 'audit', 'offline'];

/**
 * Starts asking npm for its settings (a process start, ~0.4 s) so that the answer is ready when the dependency check
 * needs it: the question is asked once and its answer kept while npm's configuration stays the same.
 */
export function prefetchNpmAuditConfig(root: string, env: NodeJS.ProcessEnv): void {
  void packageManagerSetting('npm', settingsQuery, { cwd: root, env }).catch(() => undefined);
}

/** The registry, audit and offline settings npm has for `root` (its .npmrc, the user's, the global one, the environment, npm's defaults). */
export async function npmAuditConfig(root: string, env: NodeJS.ProcessEnv): Promise<NpmAuditConfig> {
  const answer = await packageManagerAnswer('npm', settingsQuery, { cwd: root, env });
  const settings = settingsOf(answer.value);
  const registryText = settings.get('registry');
  if (!registryText) return { kind: 'skip', reason: `npm did not say which registry it uses${answer.failure ? `: ${answer.failure}` : ''}` };
  if (settings.get('audit') === 'false') return { kind: 'skip', reason: "npm's audit setting is false" };
  if (settings.get('offline') === 'true') return { kind: 'skip', reason: "npm's offline setting is true" };
  let registry: URL;
  try {
    registry = new URL(registryText.endsWith('/') ? registryText : `${registryText}/`);
  } catch {
    return { kind: 'skip', reason: "npm's registry setting is not a URL" };
  }
  if (registry.protocol !== 'https:' && registry.protocol !== 'http:') return { kind: 'skip', reason: "npm's registry setting is not an http(s) URL" };
  return { kind: 'ask', registry, authorization: authorizationFor(registry, await npmrcSettings(env)) };
}

const npmrcLimit = 256 * 1024;

/**
 * The credentials of the .npmrc files npm reads, the user's winning over the global one. The project's own .npmrc gives
 * none: it came with the repository, and a `//its-host/:_authToken=${GITHUB_TOKEN}` line in it would otherwise send any of
 * the person's environment variables to a host it names, for an analysis that reads the project.
 */
async function npmrcSettings(env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const prefix = env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX ?? dirname(dirname(process.execPath));
  const files = [
    env.npm_config_globalconfig ?? env.NPM_CONFIG_GLOBALCONFIG ?? join(prefix, 'etc', 'npmrc'),
    env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? join(env.HOME ?? '', '.npmrc'),
  ];
  const settings = new Map<string, string>();
  for (const file of files) {
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile() || info.size > npmrcLimit) continue;
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split(/\r?\n/)) {
      const match = /^\s*([^#;=\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
      if (match) settings.set(match[1] as string, unquote(match[2] as string, env));
    }
  }
  return settings;
}

/** A value as npm reads it: surrounding quotes dropped, `${NAME}` replaced by the environment variable. */
function unquote(value: string, env: NodeJS.ProcessEnv): string {
  const bare = /^(["'])(.*)\1$/.exec(value)?.[2] ?? value;
  return bare.replace(/(\\*)\$\{([^${}]+)\}/g, (whole, escapes: string, name: string) => (escapes.length % 2 === 1 ? whole.slice(1) : `${escapes}${env[name] ?? ''}`));
}

/**
 * The Authorization header npm-registry-fetch sends to `registry`: the credential of the longest `//host/path/` prefix
 * of its URL that has one (`:_authToken` as Bearer, `:_auth` or `:username` + `:_password` as Basic); null when none.
 */
export function authorizationFor(registry: URL, settings: ReadonlyMap<string, string>): string | null {
  let key = `//${registry.host}${registry.pathname}`;
  while (key.length > '//'.length) {
    const token = settings.get(`${key}:_authToken`);
    if (token) return `Bearer ${token}`;
    const auth = settings.get(`${key}:_auth`);
    if (auth) return `Basic ${auth}`;
    const username = settings.get(`${key}:username`);
    const password = settings.get(`${key}:_password`);
    if (username && password) return `Basic ${Buffer.from(`${username}:${Buffer.from(password, 'base64').toString('utf8')}`).toString('base64')}`;
    key = key.replace(/([^/]+|\/)$/, '');
  }
  return null;
}
