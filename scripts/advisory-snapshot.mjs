#!/usr/bin/env node
// Regenerates the bundled advisory snapshot (src/capabilities/data/advisories/github-npm.json.gz) from a local checkout of
// the GitHub Advisory Database (github/advisory-database, CC-BY-4.0): reviewed npm advisories only, compacted to what the
// dependency check reads (id, CVE aliases, package, affected ranges, first patched versions, severity, summary).
//
// Usage: node scripts/advisory-snapshot.mjs CHECKOUT [--out FILE] [--source-note TEXT]
//   CHECKOUT       a clone of github/advisory-database (its commit is recorded; a plain folder of the same layout needs --source-note)
//   --source-note  how the data was obtained when CHECKOUT is not a full clone; the snapshot is then marked partial
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const snapshotFile = join(root, 'src', 'capabilities', 'data', 'advisories', 'github-npm.json.gz');

function* jsonFiles(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(path);
    else if (entry.name.endsWith('.json')) yield path;
  }
}

/** OSV events of one range as {introduced, fixed} or {introduced, lastAffected} pairs. */
function intervals(events) {
  const found = [];
  let introduced = null;
  for (const event of events ?? []) {
    if (typeof event.introduced === 'string') introduced = event.introduced;
    else if (typeof event.fixed === 'string') { found.push({ introduced: introduced ?? '0', fixed: event.fixed }); introduced = null; }
    else if (typeof event.last_affected === 'string') { found.push({ introduced: introduced ?? '0', lastAffected: event.last_affected }); introduced = null; }
  }
  if (introduced !== null) found.push({ introduced });
  return found;
}

/** One OSV record of the database → compact entries, one per affected npm package (none when withdrawn or not npm). */
export function compact(record) {
  if (record.withdrawn || record.database_specific?.github_reviewed === false) return [];
  const severity = String(record.database_specific?.severity ?? 'MODERATE').toLowerCase();
  const aliases = (record.aliases ?? []).filter((alias) => typeof alias === 'string');
  return (record.affected ?? []).filter((affected) => affected.package?.ecosystem === 'npm' && typeof affected.package.name === 'string').map((affected) => ({
    id: record.id, package: affected.package.name, aliases, severity, summary: String(record.summary ?? record.details ?? '').slice(0, 200),
    ranges: (affected.ranges ?? []).filter((range) => range.type === 'ECOSYSTEM' || range.type === 'SEMVER').flatMap((range) => intervals(range.events)),
    versions: (affected.versions ?? []).filter((version) => typeof version === 'string'),
  })).filter((entry) => entry.ranges.length > 0 || entry.versions.length > 0);
}

function sourceCommit(checkout) {
  try {
    return execFileSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function buildSnapshot(checkout, sourceNote) {
  const reviewed = join(checkout, 'advisories', 'github-reviewed');
  const advisories = [];
  for (const file of jsonFiles(reviewed)) advisories.push(...compact(JSON.parse(readFileSync(file, 'utf8'))));
  advisories.sort((a, b) => a.package.localeCompare(b.package) || a.id.localeCompare(b.id));
  const commit = sourceCommit(checkout);
  if (!commit && !sourceNote) throw new Error(`${checkout} is not a git clone: pass --source-note to say where the data came from.`);
  return {
    format: 'cadre-advisories/1',
    source: {
      name: 'GitHub Advisory Database', repository: 'github/advisory-database', licence: 'CC-BY-4.0',
      attribution: 'Advisory data © GitHub, Inc. and contributors, under the Creative Commons Attribution 4.0 licence.',
      commit, complete: !sourceNote, ...(sourceNote ? { note: sourceNote } : {}),
    },
    generated: new Date().toISOString().slice(0, 10),
    advisories,
  };
}

function main(argv) {
  const [checkout] = argv;
  if (!checkout) throw new Error('Usage: node scripts/advisory-snapshot.mjs CHECKOUT [--out FILE] [--source-note TEXT]');
  const option = (name) => { const at = argv.indexOf(name); return at === -1 ? undefined : argv[at + 1]; };
  const snapshot = buildSnapshot(checkout, option('--source-note'));
  const out = option('--out') ?? snapshotFile;
  writeFileSync(out, gzipSync(JSON.stringify(snapshot), { level: 9 }));
  const packages = new Set(snapshot.advisories.map((advisory) => advisory.package)).size;
  console.log(`${out}: ${snapshot.advisories.length} advisories for ${packages} packages (${snapshot.source.commit ?? 'partial'}).`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
