// The package registries egress allows: those npm's and yarn's own configuration name on this host (read at run time,
// once per process while that configuration stays the same), and those a project's own configuration files name.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageManagerSetting } from './host-package-config.js';

const queries: Array<[command: 'npm' | 'yarn', args: string[]]> = [
  ['npm', ['config', 'get', 'registry']],
  ['yarn', ['config', 'get', 'registry']],
  ['yarn', ['config', 'get', 'npmRegistryServer']],
];

/**
 * Host names of the registries npm and yarn are configured to use. A package manager that is
 * not installed, or answers something that is not a URL, contributes nothing.
 */
export async function packageManagerRegistryHosts(options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string[]> {
  const answers = await Promise.all(queries.map(([command, args]) => packageManagerSetting(command, args, options)));
  const hosts = new Set<string>();
  for (const answer of answers) {
    const host = hostOf(answer.trim());
    if (host !== undefined) hosts.add(host);
  }
  return [...hosts];
}

function hostOf(value: string): string | undefined {
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    return new URL(value).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}


/** The package-manager configuration files a project may commit, and how each names a registry (scoped ones too). */
const projectFiles: Array<[file: string, pattern: RegExp]> = [
  // registry=…, @scope:registry=…
  ['.npmrc', /^\s*(?:@[\w.-]+:)?registry\s*=\s*["']?(https?:\/\/[^\s"']+)/i],
  // registry "…", "@scope:registry" "…"
  ['.yarnrc', /^\s*"?(?:@[\w.-]+:)?registry"?\s+["']?(https?:\/\/[^\s"']+)/i],
  // npmRegistryServer: "…", at the top or under npmScopes.<scope>
  ['.yarnrc.yml', /^\s*npmRegistryServer\s*:\s*["']?(https?:\/\/[^\s"']+)/i],
];

const projectFileLimit = 64 * 1024;

/**
 * Host names of the registries a project's own `.npmrc`, `.yarnrc` and `.yarnrc.yml` name (scoped registries too). The
 * files are untrusted: a link or anything but a small regular file is skipped, and only http(s) URLs count.
 */
export async function projectRegistryHosts(dir: string): Promise<string[]> {
  const hosts = new Set<string>();
  for (const [file, pattern] of projectFiles) {
    const text = await readSmallFile(join(dir, file));
    for (const line of text.split(/\r?\n/)) {
      const host = hostOf(pattern.exec(line)?.[1] ?? '');
      if (host !== undefined) hosts.add(host);
    }
  }
  return [...hosts];
}

async function readSmallFile(path: string): Promise<string> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > projectFileLimit) return '';
  return readFile(path, 'utf8').catch(() => '');
}

/** The host names of registry URLs, each once. */
export function registryHostsOf(urls: readonly string[]): string[] {
  return [...new Set(urls.flatMap((url) => hostOf(url) ?? []))];
}
