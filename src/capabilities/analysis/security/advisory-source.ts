// Which advisories the dependency check uses: npm's registry when npm itself would ask it (the project has a lockfile,
// npm's `audit` is on, neither npm nor cadre is offline), from the day's cache when that holds this lockfile's answer,
// merged with the bundled snapshot; otherwise the bundled snapshot alone, and the report says why.
import { contentHash, type FileWarning } from '../../../project/files.js';
import type { AdvisorySource } from '../types.js';
import type { InstalledPackage } from '../view.js';
import { loadAdvisories } from './advisories.js';
import { loadCachedAdvisories, saveCachedAdvisories, type CachedAdvisories } from './advisory-cache.js';
import { npmAuditConfig } from './npm-audit-config.js';
import { askBulkAdvisories, bulkRequestOf } from './registry-advisories.js';
import type { Advisory } from './snapshot.js';

export type AdvisoryOptions = {
  /** `--offline`: never ask the registry. */
  offline: boolean;
  env: NodeJS.ProcessEnv;
  /** The key cadre's caches are signed with. */
  secret: Buffer | undefined;
  /** Keep the registry's answer for a day (false with the caches off). */
  cache: boolean;
  signal?: AbortSignal;
};

export type ResolvedAdvisories = { advisories: Advisory[]; source: AdvisorySource; warning: FileWarning | null };

export async function resolveAdvisories(root: string, installed: readonly InstalledPackage[], advisoriesFile: string | undefined, options: AdvisoryOptions): Promise<ResolvedAdvisories> {
  const bundled = await loadAdvisories(advisoriesFile);
  const fallback = (reason: string, failed = false): ResolvedAdvisories => ({
    advisories: bundled.advisories, warning: null,
    source: { kind: 'bundled', advisories: bundled.advisories.length, generated: bundled.generated, reason, failed },
  });
  if (options.offline) return fallback('the registry was not asked (--offline)');
  const request = bulkRequestOf(installed);
  if (Object.keys(request).length === 0) return fallback('the registry was not asked: the project has no lockfile');
  const config = await npmAuditConfig(root, options.env);
  if (config.kind === 'skip') return fallback(`the registry was not asked: ${config.reason}`);
  // Credentials written into the registry URL are not sent: npm expands ${VARIABLES} in a project's .npmrc too, so
  // `registry=https://x:${GITHUB_TOKEN}@a-host/` in a repository would send the person's environment to a host it names.
  const registry = new URL(config.registry.href);
  registry.username = '';
  registry.password = '';
  const key = { root, registry: registry.href, request: contentHash(JSON.stringify(request)), secret: options.secret };
  let answer: CachedAdvisories | null = options.cache ? await loadCachedAdvisories(key) : null;
  let warning: FileWarning | null = null;
  if (!answer) {
    const asked = await askBulkAdvisories({ registry, authorization: config.authorization, request, ...(options.signal ? { signal: options.signal } : {}) });
    if (!asked.ok) return fallback(`the registry ${registry.host} could not be used: ${asked.reason}`, true);
    answer = { fetchedAt: new Date().toISOString(), advisories: asked.advisories };
    if (options.cache) warning = await saveCachedAdvisories(key, answer);
  }
  return {
    advisories: mergeAdvisories(answer.advisories, bundled.advisories), warning,
    source: { kind: 'registry', host: registry.host, fetchedAt: answer.fetchedAt, advisories: answer.advisories.length },
  };
}

/** The registry's advisories, plus the bundled ones it does not already name (by id, URL or alias, per package). */
export function mergeAdvisories(registry: readonly Advisory[], bundled: readonly Advisory[]): Advisory[] {
  const known = new Set(registry.flatMap((advisory) => [advisory.id, advisory.url, ...advisory.aliases].filter((name): name is string => Boolean(name)).map((name) => `${advisory.packageName}\u0000${name.toLowerCase()}`)));
  const named = (advisory: Advisory): boolean => [advisory.id, advisory.url, ...advisory.aliases].some((name) => name !== undefined && known.has(`${advisory.packageName}\u0000${name.toLowerCase()}`));
  return [...registry, ...bundled.filter((advisory) => !named(advisory))];
}
