// The package registries that npm's and yarn's own configuration name on this host, read at run time (once per process
// while that configuration stays the same).
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
