// Insecure dependencies: installed, declared or copied-in versions that fall in an advisory's vulnerable range.
import semver from 'semver';
import { lineLocator } from '../../../project/ast.js';
import type { FileWarning, Finding, RuleMeta } from '../types.js';
import type { InstalledPackage, ProjectView } from '../view.js';
import type { Advisory } from './advisories.js';

export const dependencyRule: RuleMeta = {
  id: 'security/vulnerable-dependency',
  kind: 'security',
  category: 'dependencies',
  title: 'A dependency with a known vulnerability',
  help: 'Upgrade to a patched version (or replace the package when none exists).',
};

export type ManifestLines = { packageJson: string | null; lockfile: string | null; lockfileName: string | null };

type Where = { file: string; line: number; context?: string };

/**
 * Checks direct dependencies (the installed version, else the lowest version the range allows), every package the
 * lockfile installs, and libraries copied into the project. Development-only packages are labelled as such.
 */
export function checkDependencies(view: ProjectView, advisories: readonly Advisory[], texts: ManifestLines, warn: (warning: FileWarning) => void): Finding[] {
  const byPackage = new Map<string, Advisory[]>();
  for (const advisory of advisories) {
    const list = byPackage.get(advisory.packageName) ?? [];
    list.push(advisory);
    byPackage.set(advisory.packageName, list);
  }
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const lineIn = lineFinder(texts.packageJson);
  const lineInLockfile = lineFinder(texts.lockfile);
  const check = (name: string, version: string, where: Where, how: string): void => {
    for (const advisory of byPackage.get(name) ?? []) {
      if (!semver.satisfies(version, advisory.vulnerable, { includePrerelease: true, loose: true }) || seen.has(`${name}@${version}:${advisory.id}`)) continue;
      seen.add(`${name}@${version}:${advisory.id}`);
      const aliases = advisory.aliases.length > 0 ? ` (${advisory.aliases.join(', ')})` : '';
      findings.push({
        file: where.file, line: where.line, column: 1, ruleId: dependencyRule.id, category: dependencyRule.category, severity: advisory.severity,
        message: `${name}@${version}${how}: ${advisory.title} [${advisory.id}${aliases}].`,
        fix: advisory.patched ? `Upgrade ${name} to a version in ${advisory.patched}.` : `No patched version is known: replace ${name}.`,
        ...(where.context ? { context: where.context } : {}),
      });
    }
  };
  const runtime = view.packageJson?.dependencies ?? {};
  const direct = { ...view.packageJson?.devDependencies, ...runtime };
  const checkedInstalls = new Set<InstalledPackage>();
  for (const [name, spec] of Object.entries(direct)) {
    const dev = !(name in runtime);
    const declared = declaredVersion(name, spec);
    if (declared === 'unreadable') warn({ file: 'package.json', message: `the version "${String(spec)}" of ${name} is not a version range npm understands; ${name} was not checked.` });
    const target = typeof declared === 'object' && declared ? declared.name : name;
    const installed = installedFor(view.installed, target, typeof spec === 'string' ? spec : '');
    if (installed) checkedInstalls.add(installed);
    const version = installed?.version ?? (typeof declared === 'object' ? declared?.version : null);
    if (!version) continue;
    check(target, version, { file: 'package.json', line: lineIn(`"${name}"`) || 1, ...(dev ? { context: 'dev dependency' } : {}) }, installed ? ' is installed' : ` is allowed by "${String(spec)}"`);
  }
  const lockfile = texts.lockfileName ?? 'package-lock.json';
  for (const item of view.installed) {
    if (checkedInstalls.has(item)) continue;
    const needle = lockfile === 'package-lock.json' ? `"${item.location}"` : lockfile === 'yarn.lock' ? `${item.name}@` : `${item.name}@${item.version}`;
    const line = lineInLockfile(needle) || lineInLockfile(`"${item.name}"`);
    check(item.name, item.version, { file: lockfile, line: line || 1, ...(item.dev ? { context: 'dev dependency' } : {}) }, ' is installed as a transitive dependency');
  }
  for (const [path, file] of view.files) {
    for (const library of file.vendored ?? []) check(library.name, library.version, { file: path, line: library.line }, ' is copied into the project');
  }
  return findings;
}

/** The installed copy of a direct dependency: the top-level one, else one that satisfies the declared range. */
function installedFor(installed: readonly InstalledPackage[], name: string, range: string): InstalledPackage | undefined {
  const candidates = installed.filter((item) => item.name === name);
  const top = candidates.filter((item) => item.location === `node_modules/${name}`);
  const valid = semver.validRange(range, { loose: true });
  const fits = (item: InstalledPackage): boolean => valid !== null && semver.satisfies(item.version, valid, { loose: true });
  return top.find(fits) ?? candidates.find(fits) ?? (top.length === 1 ? top[0] : undefined);
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

/** The line of the first occurrence of a needle in a text (0 when absent), with line starts computed once. */
function lineFinder(text: string | null): (needle: string) => number {
  if (!text) return () => 0;
  const locate = lineLocator(text);
  return (needle) => {
    const index = text.indexOf(needle);
    return index === -1 ? 0 : locate(index).line;
  };
}
