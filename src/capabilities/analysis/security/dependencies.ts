// Insecure dependencies: installed, declared or copied-in versions that fall in an advisory's vulnerable range.
import semver from 'semver';
import { lineLocator } from '../../../project/ast.js';
import type { FileWarning, Finding, RuleMeta, Severity } from '../types.js';
import type { InstalledPackage, ProjectView } from '../view.js';
import type { Advisory } from './advisories.js';
import { dependencyGraph, pathBound, type Reach } from './dependency-paths.js';
import { everyAllowedVersionAffected, namedVersions } from './ranges.js';

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
 * Checks direct dependencies (the installed version, else the declared range: reported when every version it allows is
 * affected), every package the lockfile installs, and libraries copied into or loaded by the project. Development-only
 * packages are labelled as such.
 */
export function checkDependencies(view: ProjectView, advisories: readonly Advisory[], texts: ManifestLines, warn: (warning: FileWarning) => void): Finding[] {
  const byPackage = new Map<string, Advisory[]>();
  for (const advisory of advisories) {
    const list = byPackage.get(advisory.packageName) ?? [];
    list.push(advisory);
    byPackage.set(advisory.packageName, list);
  }
  const hits = new Map<string, Hit>();
  const lineIn = lineFinder(texts.packageJson);
  const lineInLockfile = lineFinder(texts.lockfile);
  const report = (key: string, hit: Omit<Hit, 'advisories'>, advisory: Advisory): void => {
    const known = hits.get(key) ?? { ...hit, advisories: [] };
    if (!known.advisories.some((item) => item.id === advisory.id)) known.advisories.push(advisory);
    hits.set(key, known);
  };
  const check = (name: string, version: string, key: string, hit: () => Omit<Hit, 'advisories'>): void => {
    // The hit (its dependency paths, its lockfile line) is worked out once, however many advisories it matches.
    let found: Omit<Hit, 'advisories'> | undefined;
    for (const advisory of byPackage.get(name) ?? []) {
      if (semver.satisfies(version, advisory.vulnerable, { includePrerelease: true, loose: true })) report(key, found ??= hit(), advisory);
    }
  };
  const known = new Map<string, string[]>();
  const knownVersions = (name: string): string[] => {
    let versions = known.get(name);
    if (!versions) known.set(name, versions = (byPackage.get(name) ?? []).flatMap(namedVersions));
    return versions;
  };
  const manifest = view.packageJson;
  const runtime = { ...manifest?.optionalDependencies, ...manifest?.dependencies };
  const direct = { ...manifest?.devDependencies, ...runtime };
  const roots = { runtime: new Map<string, string>(), dev: new Map<string, string>() };
  const copies = new Map<string, InstalledPackage[]>();
  for (const item of view.installed) {
    const key = `${item.name}@${item.version}`;
    copies.set(key, [...copies.get(key) ?? [], item]);
  }
  const directAt = new Map<string, Where>();
  for (const [name, spec] of Object.entries(direct)) {
    const dev = !(name in runtime);
    const declared = declaredRange(name, spec);
    if (declared === 'unreadable') warn({ file: 'package.json', message: `the version "${String(spec)}" of ${name} is not a version range npm understands; ${name} was not checked.` });
    const target = typeof declared === 'object' && declared ? declared.name : name;
    const installed = installedFor(view.installed, target, typeof spec === 'string' ? spec : '');
    const where = { file: 'package.json', line: lineIn(`"${name}"`) || 1 };
    if (installed) {
      const key = `${installed.name}@${installed.version}`;
      (dev ? roots.dev : roots.runtime).set(name, key);
      if (!directAt.has(key) || !dev) directAt.set(key, where);
    } else if (typeof declared === 'object' && declared) {
      for (const advisory of byPackage.get(target) ?? []) {
        if (!everyAllowedVersionAffected(declared.range, advisory.vulnerable, knownVersions(target))) continue;
        const how = ' (declared; nothing installed or locked): every version the range allows is affected';
        report(`package.json:${target}@${declared.range}`, { name: target, subject: declared.range, where: { ...where, ...(dev ? { context: 'dev dependency' } : {}) }, how, range: declared.range }, advisory);
      }
    }
  }
  const reach = dependencyGraph(view.installed, roots);
  const lockfile = texts.lockfileName ?? 'package-lock.json';
  for (const [key, list] of copies) {
    const [first] = list as [InstalledPackage, ...InstalledPackage[]];
    check(first.name, first.version, key, () => {
      const paths = reach?.(key);
      const declaredDevOnly = [...roots.dev.values()].includes(key) && ![...roots.runtime.values()].includes(key);
      const devOnly = paths && paths.runtime + paths.dev > 0 ? paths.runtime === 0 : declaredDevOnly || list.every((item) => item.dev);
      const at = directAt.get(key);
      const needle = lockfile === 'package-lock.json' ? `"${first.location}"` : lockfile === 'yarn.lock' ? `${first.name}@` : `${first.name}@${first.version}`;
      const where = at ?? { file: lockfile, line: lineInLockfile(needle) || lineInLockfile(`"${first.name}"`) || 1 };
      const how = at ? ' is installed' : ' is installed as a transitive dependency';
      return { name: first.name, subject: first.version, where: { ...where, ...(devOnly ? { context: 'dev dependency' } : {}) }, how: how + reachedBy(list.length, at && paths && paths.runtime + paths.dev === 1 ? undefined : paths, lockfile) };
    });
  }
  for (const [path, file] of view.files) {
    for (const library of file.vendored ?? []) {
      const how = library.loaded ? ' is loaded by this page' : ' is copied into the project';
      check(library.name, library.version, `${path}:${library.line}:${library.name}@${library.version}`, () => ({ name: library.name, subject: library.version, where: { file: path, line: library.line }, how }));
    }
  }
  return [...hits.values()].map(toFinding);
}

type Hit = { name: string; subject: string; where: Where; how: string; advisories: Advisory[]; range?: string };

/** How many copies the lockfile holds and how many dependency paths lead to the package, from which direct dependencies. */
function reachedBy(copies: number, paths: Reach | undefined, lockfile: string): string {
  const parts = copies > 1 ? [`${copies} copies in ${lockfile}`] : [];
  if (paths) {
    const total = Math.min(paths.runtime + paths.dev, pathBound);
    const names = paths.through.length > 3 ? `${paths.through.slice(0, 3).join(', ')} and ${paths.through.length - 3} more` : paths.through.join(', ');
    if (total > 0) parts.push(`${total >= pathBound ? `over ${pathBound.toLocaleString('en')}` : total} dependency path${total === 1 ? '' : 's'}${names ? ` through ${names}` : ''}`);
  }
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}
const severityRank: Record<Severity, number> = { Critical: 0, High: 1, Medium: 2, Low: 3 };
const label = (advisory: Advisory): string => `${advisory.id}${advisory.aliases.length > 0 ? ` (${advisory.aliases.join(', ')})` : ''}`;

/** One finding per package and place: the most severe advisory leads, the others are listed, and the fix covers them all. */
function toFinding(hit: Hit): Finding {
  const advisories = [...hit.advisories].sort((a, b) => severityRank[a.severity] - severityRank[b.severity] || a.id.localeCompare(b.id));
  const [first, ...others] = advisories as [Advisory, ...Advisory[]];
  const more = others.length > 0 ? ` Also: ${others.map(label).join(', ')}.` : '';
  const unpatched = advisories.filter((advisory) => !advisory.patched);
  const base = semver.valid(hit.subject, { loose: true }) ?? semver.minVersion(hit.subject, { loose: true })?.version ?? null;
  const lowestFixes = advisories.map((advisory) => fixOnLine(advisory, base)).filter((item) => item !== null);
  const target = lowestFixes.sort((a, b) => semver.compare(b, a))[0];
  const upgrade = target ? `Upgrade ${hit.name} to ${target.version} or later${hit.range ? ` ("${hit.range}" never reaches it: change the range in package.json)` : ''}.` : '';
  const replace = unpatched.length > 0 ? ` No patched version is known for ${unpatched.map((advisory) => advisory.id).join(', ')}: replace ${hit.name} if that matters here.` : '';
  return {
    file: hit.where.file, line: hit.where.line, column: 1, ruleId: dependencyRule.id, category: dependencyRule.category, severity: first.severity,
    message: `${hit.name}@${hit.subject}${hit.how}: ${first.title} [${label(first)}].${first.url ? ` ${first.url}` : ''}${more}`,
    fix: (upgrade + replace).trim(),
    ...(hit.where.context ? { context: hit.where.context } : {}),
  };
}

/**
 * The first fixed version on the installed line: the upper bound of the affected range the installed version falls in
 * (express 5.1.0 under "<4.22.0 || >=5.0.0 <5.2.0" is fixed by 5.2.0, not 4.22.0); the advisory's first patched
 * version when no range bounds it.
 */
function fixOnLine(advisory: Advisory, base: string | null): semver.SemVer | null {
  const patched = advisory.patched ? semver.minVersion(advisory.patched, { loose: true }) : null;
  if (!base) return patched;
  const range = semver.validRange(advisory.vulnerable, { loose: true }) ? new semver.Range(advisory.vulnerable, { loose: true, includePrerelease: true }) : null;
  for (const set of range?.set ?? []) {
    if (!set.every((comparator) => comparator.test(base))) continue;
    const upper = set.find((comparator) => comparator.operator === '<');
    if (upper) return upper.semver;
  }
  return patched;
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
 * The version range a dependency's specifier allows, read as npm reads package.json (loosely: "^4.00" is ^4.0.0),
 * with `npm:` aliases checked as the aliased package; null for specifiers that name no version, 'unreadable' for junk.
 */
function declaredRange(name: string, spec: unknown): { name: string; range: string } | null | 'unreadable' {
  if (typeof spec !== 'string') return 'unreadable';
  const alias = /^npm:((?:@[^/@]+\/)?[^@]+)(?:@(.*))?$/.exec(spec.trim());
  const target = alias ? alias[1] as string : name;
  const range = alias ? alias[2] ?? '*' : spec;
  if (semver.validRange(range, { loose: true }) === null) return notARange.test(range.trim()) ? null : 'unreadable';
  return semver.minVersion(range, { loose: true }) ? { name: target, range } : null;
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
