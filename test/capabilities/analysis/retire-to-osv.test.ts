// scripts/retire-to-osv.mjs: a Retire.js repository (jsrepository-master.json at HEAD of a git clone) becomes an OSV export that the security analysis reads.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAdvisoryExport, runAnalysis } from '../../../src/capabilities/analysis/index.js';

const repository = resolve(import.meta.dirname, '../../..');
let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cadre-retire-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

// Entries in Retire.js's format (jsrepository-master.json): npmname names the package; ranges use atOrAbove / below.
const retireRepository = {
  moment: { npmname: 'moment', vulnerabilities: [{ ranges: [{ atOrAbove: '1.0.1', below: '2.29.2' }], severity: 'high', summary: 'Path traversal in moment.locale', identifiers: { CVE: ['CVE-2022-24785'], githubID: 'GHSA-8hfj-j24r-96c4' }, info: ['https://github.com/advisories/GHSA-8hfj-j24r-96c4'] }] },
  'jquery-ui-dialog': { npmname: 'jquery-ui', vulnerabilities: [{ ranges: [{ below: '1.10.0' }], severity: 'medium', identifiers: { summary: 'XSS in the dialog title', CVE: ['CVE-2010-5312'] } }] },
  ember: { vulnerabilities: [{ ranges: [{ below: '1.0.0' }], severity: 'high', identifiers: { summary: 'no npm name: left out' } }] },
};

async function convert(): Promise<string> {
  const checkout = join(folder, 'retire.js');
  await mkdir(join(checkout, 'repository'), { recursive: true });
  await writeFile(join(checkout, 'repository', 'jsrepository-master.json'), JSON.stringify(retireRepository));
  const git = (...args: string[]): string => execFileSync('git', ['-C', checkout, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'advisories');
  const out = join(folder, 'retire.osv.json');
  execFileSync(process.execPath, [join(repository, 'scripts', 'retire-to-osv.mjs'), checkout, '--out', out], { encoding: 'utf8' });
  return out;
}

describe('scripts/retire-to-osv.mjs', () => {
  it('writes OSV records by npm name with ranges, ids, severity and provenance, leaving out libraries without an npm name', async () => {
    const out = await convert();
    const document = JSON.parse(await readFile(out, 'utf8')) as { source: { repository: string; commit: string; licence: string }; vulns: unknown[] };
    expect(document.source).toMatchObject({ repository: 'RetireJS/retire.js', licence: 'Apache-2.0' });
    expect(document.source.commit).toMatch(/^[0-9a-f]{40}$/);
    const advisories = parseAdvisoryExport(await readFile(out, 'utf8'));
    expect(advisories.map((advisory) => [advisory.id, advisory.packageName, advisory.severity, advisory.patched])).toEqual([
      ['GHSA-8hfj-j24r-96c4', 'moment', 'High', '>=2.29.2'],
      ['CVE-2010-5312', 'jquery-ui', 'Medium', '>=1.10.0'],
    ]);
    expect(advisories[0]?.aliases).toEqual(['CVE-2022-24785']);
  });

  it('is read by `--advisories`: a project pinning moment 2.29.1 gets the finding', async () => {
    const out = await convert();
    const project = join(folder, 'app');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { moment: '2.29.1' } }));
    const report = await runAnalysis('security', { cwd: project, cache: false, advisoriesFile: out });
    expect(report.findings.find((finding) => finding.category === 'dependencies' && finding.message.startsWith('moment@2.29.1'))?.message).toContain('GHSA-8hfj-j24r-96c4');
  });
});
