#!/usr/bin/env node
// Converts Retire.js's advisory list for JavaScript libraries (RetireJS/retire.js, repository/jsrepository-master.json,
// Apache-2.0) into an OSV export that `cadre analyze security --advisories FILE` reads: one record per advisory and npm
// package (libraries without an npm name are left out), with its provenance (repository, commit, date, licence).
//
// Usage: node scripts/retire-to-osv.mjs CHECKOUT --out FILE
//   CHECKOUT  a clone of RetireJS/retire.js, or its bare git folder (the file is read at HEAD and its commit recorded)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const severities = { low: 'LOW', medium: 'MODERATE', moderate: 'MODERATE', high: 'HIGH', critical: 'CRITICAL' };

const texts = (value) => (Array.isArray(value) ? value.filter((item) => typeof item === 'string' && item.length > 0) : []);

/** OSV events of one Retire.js range: `atOrAbove` (or 0) introduces, `below` fixes. */
function events(range) {
  const introduced = typeof range.atOrAbove === 'string' && range.atOrAbove ? range.atOrAbove : '0';
  return typeof range.below === 'string' && range.below ? [{ introduced }, { fixed: range.below }] : [{ introduced }];
}

/** One library's vulnerabilities as OSV records for its npm package. */
export function toOsv(library, entry) {
  const npmName = typeof entry.npmname === 'string' ? entry.npmname : null;
  if (!npmName) return [];
  return (entry.vulnerabilities ?? []).flatMap((vulnerability, index) => {
    const ranges = Array.isArray(vulnerability.ranges) ? vulnerability.ranges : [vulnerability];
    const usable = ranges.filter((range) => typeof range?.below === 'string' || typeof range?.atOrAbove === 'string');
    if (usable.length === 0) return [];
    const identifiers = vulnerability.identifiers ?? {};
    const cves = texts(identifiers.CVE);
    const github = typeof identifiers.githubID === 'string' ? identifiers.githubID : null;
    const summary = typeof identifiers.summary === 'string' ? identifiers.summary : typeof vulnerability.summary === 'string' ? vulnerability.summary : `A known vulnerability in ${library}`;
    return [{
      id: github ?? cves[0] ?? `RETIREJS-${library}-${index + 1}`,
      aliases: github ? cves : cves.slice(1),
      summary: summary.slice(0, 200),
      affected: [{ package: { ecosystem: 'npm', name: npmName }, ranges: usable.map((range) => ({ type: 'SEMVER', events: events(range) })) }],
      database_specific: { severity: severities[String(vulnerability.severity ?? '').toLowerCase()] ?? 'MODERATE', source: `Retire.js ${library}` },
      references: texts(vulnerability.info).map((url) => ({ type: 'WEB', url })),
    }];
  });
}

function main(argv) {
  const [checkout] = argv;
  const at = argv.indexOf('--out');
  const out = at === -1 ? undefined : argv[at + 1];
  if (!checkout || !out) throw new Error('Usage: node scripts/retire-to-osv.mjs CHECKOUT --out FILE');
  const git = (...args) => execFileSync('git', ['-C', checkout, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const commit = git('rev-parse', 'HEAD').trim();
  const committed = git('log', '-1', '--format=%cI', 'HEAD', '--', 'repository/jsrepository-master.json').trim();
  const repository = JSON.parse(git('show', 'HEAD:repository/jsrepository-master.json'));
  const vulns = Object.entries(repository).flatMap(([library, entry]) => toOsv(library, entry));
  const document = {
    source: {
      name: 'Retire.js vulnerability repository (jsrepository-master.json)', repository: 'RetireJS/retire.js', commit, committed,
      licence: 'Apache-2.0', attribution: 'Vulnerability data © the Retire.js contributors, under the Apache License 2.0.',
      scope: 'JavaScript libraries that also run in browsers (jQuery, Angular, lodash, Handlebars, DOMPurify, axios…), by their npm names; not a complete npm advisory database.',
    },
    generated: new Date().toISOString().slice(0, 10),
    vulns,
  };
  writeFileSync(out, `${JSON.stringify(document)}\n`);
  const packages = new Set(vulns.map((record) => record.affected[0].package.name)).size;
  console.log(`${out}: ${vulns.length} advisories for ${packages} npm packages from RetireJS/retire.js@${commit.slice(0, 12)} (${committed}).`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
