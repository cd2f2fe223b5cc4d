// Insecure dependencies: installed or declared versions that fall in an advisory's vulnerable range.
import semver from 'semver';
import type { FileWarning, Finding, RuleMeta } from '../types.js';
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
export function checkDependencies(view: ProjectView, advisories: readonly Advisory[], texts: ManifestLines, warn: (warning: FileWarning) => void): Finding[] {
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
  for (const [name, spec] of Object.entries(direct)) {
    const installed = view.installed.find((item) => item.location === `node_modules/${name}`)?.version;
    const declared = installed ? null : declaredVersion(name, spec);
    if (declared === 'unreadable') warn({ file: 'package.json', message: `the version "${spec}" of ${name} is not a version range npm understands; ${name} was not checked.` });
    const version = installed ?? (typeof declared === 'object' ? declared?.version : null);
    if (!version) continue;
    const checkedName = typeof declared === 'object' && declared ? declared.name : name;
    check(checkedName, version, { file: 'package.json', line: lineOf(texts.packageJson, `"${name}"`) }, installed ? ' is installed' : ` is allowed by "${spec}"`);
  }
  for (const { name, version, location } of view.installed) {
    if (location === `node_modules/${name}` && name in direct) continue;
    check(name, version, { file: 'package-lock.json', line: lineOf(texts.lockfile, `"${location}"`) }, ' is installed as a transitive dependency');
  }
  return findings;
}

/** Specifiers that name no registry version: workspaces, catalogs, files, links, git and URLs, dist-tags. */
const notARange = /^(?:[a-z][\w+.-]*:|[\w.-]+\/[\w.-]+(?:#.*)?$|[a-z][\w.-]*$)/i;

/**
 * The lowest version a dependency's specifier allows, read as npm reads package.json (loosely: "^4.00" is ^4.0.0),
 * with `npm:` aliases checked as the aliased package; null for specifiers that name no version, 'unreadable' for junk.
 */
function declaredVersion(name: string, spec: unknown): { name: string; version: string } | null | 'unreadable' {
  if (typeof spec !== 'string') return 'unreadable';
  const alias = /^npm:((?:@[^/@]+\/)?[^@]+)(?:@(.*))?$/.exec(spec.trim());
  const target = alias ? alias[1] as string : name;
  const range = alias ? alias[2] ?? '*' : spec;
  if (semver.validRange(range, { loose: true }) === null) return notARange.test(range.trim()) ? null : 'unreadable';
  const lowest = semver.minVersion(range, { loose: true });
  return lowest ? { name: target, version: lowest.version } : null;
}

function lineOf(text: string | null, needle: string): number {
  if (!text) return 1;
  const index = text.indexOf(needle);
  return index === -1 ? 1 : text.slice(0, index).split('\n').length;
}
