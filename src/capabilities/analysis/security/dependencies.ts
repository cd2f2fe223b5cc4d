// Insecure dependencies: installed or declared versions that fall in an advisory's vulnerable range.
import semver from 'semver';
import type { Finding, RuleMeta } from '../types.js';
import type { ProjectView } from '../view.js';
import type { Advisory } from './advisories.js';

export const dependencyRule: RuleMeta = {
  id: 'security/vulnerable-dependency',
  kind: 'security',
  category: 'dependencies',
  title: 'A dependency with a known vulnerability',
  help: 'Upgrade to a patched version (or replace the package when none exists).',
};

export type ManifestLines = { packageJson: string | null; lockfile: string | null };

/** Checks direct dependencies (installed version, else the lowest version the range allows) and the lockfile's transitive ones. */
export function checkDependencies(view: ProjectView, advisories: readonly Advisory[], texts: ManifestLines): Finding[] {
  const byPackage = new Map<string, Advisory[]>();
  for (const advisory of advisories) {
    const list = byPackage.get(advisory.packageName) ?? [];
    list.push(advisory);
    byPackage.set(advisory.packageName, list);
  }
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const direct = { ...view.packageJson?.devDependencies, ...view.packageJson?.dependencies };
  const check = (name: string, version: string, where: { file: string; line: number }, how: string): void => {
    for (const advisory of byPackage.get(name) ?? []) {
      if (!semver.satisfies(version, advisory.vulnerable, { includePrerelease: true }) || seen.has(`${name}@${version}:${advisory.id}`)) continue;
      seen.add(`${name}@${version}:${advisory.id}`);
      const aliases = advisory.aliases.length > 0 ? ` (${advisory.aliases.join(', ')})` : '';
      findings.push({
        file: where.file, line: where.line, column: 1, ruleId: dependencyRule.id, category: dependencyRule.category, severity: advisory.severity,
        message: `${name}@${version}${how}: ${advisory.title} [${advisory.id}${aliases}].`,
        fix: advisory.patched ? `Upgrade ${name} to a version in ${advisory.patched}.` : `No patched version is known: replace ${name}.`,
      });
    }
  };
  for (const [name, range] of Object.entries(direct)) {
    const installed = view.installed.find((item) => item.location === `node_modules/${name}`)?.version;
    const version = installed ?? semver.minVersion(range)?.version ?? null;
    if (!version) continue;
    check(name, version, { file: 'package.json', line: lineOf(texts.packageJson, `"${name}"`) }, installed ? ' is installed' : ` is allowed by "${range}"`);
  }
  for (const { name, version, location } of view.installed) {
    if (location === `node_modules/${name}` && name in direct) continue;
    check(name, version, { file: 'package-lock.json', line: lineOf(texts.lockfile, `"${location}"`) }, ' is installed as a transitive dependency');
  }
  return findings;
}

function lineOf(text: string | null, needle: string): number {
  if (!text) return 1;
  const index = text.indexOf(needle);
  return index === -1 ? 1 : text.slice(0, index).split('\n').length;
}
