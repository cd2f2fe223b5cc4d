// runAnalysis on the example projects: findings, the cache, user advisory exports, and the three report formats.
import { writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReportText, runAnalysis, toMarkdown, toSarif } from '../../src/capabilities/analysis/index.js';
import { isCadreError } from '../../src/errors.js';
import { useExampleCopies } from '../project/helpers.js';

const example = useExampleCopies();

describe('runAnalysis', () => {
  it('audits the API: injection, reflected XSS through a view, secrets, a vulnerable dependency, no CSRF for a bearer-token API, with counts per severity', async () => {
    const cwd = await example('shop-api');
    const report = await runAnalysis('security', { cwd });
    const located = report.findings.map((finding) => `${finding.ruleId} ${finding.file}:${finding.line}`);
    expect(located).toEqual(expect.arrayContaining([
      'security/sql-injection src/routes/products.ts:18',
      'security/reflected-xss views/receipt.ejs:3',
      'security/hardcoded-secret src/middleware/auth.ts:5',
      'security/vulnerable-dependency package.json:22',
    ]));
    // Admin requests carry a bearer token, not a cookie: nothing for a cross-site form to ride on.
    expect(report.findings.filter((finding) => finding.category === 'csrf')).toEqual([]);
    expect(report.counts.Critical).toBe(1);
    expect(Object.values(report.counts).reduce((sum, count) => sum + count, 0)).toBe(report.findings.length);
    for (const finding of report.findings) expect(finding.fix.length).toBeGreaterThan(10);
  });

  it('re-analyses only changed files and keeps the same findings', async () => {
    const cwd = await example('shop-api');
    const first = await runAnalysis('security', { cwd });
    expect(first.filesReused).toBe(0);
    const second = await runAnalysis('security', { cwd });
    expect(second.filesReused).toBe(second.filesAnalyzed);
    expect(second.findings).toEqual(first.findings);
    const products = join(cwd, 'src/routes/products.ts');
    await writeFile(products, (await readFile(products, 'utf8')).replace('$queryRawUnsafe(`SELECT * FROM "Product" WHERE name ILIKE \'%${term}%\'`)', '$queryRaw`SELECT * FROM "Product" WHERE name ILIKE ${`%${term}%`}`'));
    const third = await runAnalysis('security', { cwd });
    expect(third.filesReused).toBe(third.filesAnalyzed - 1);
    expect(third.findings.some((finding) => finding.ruleId === 'security/sql-injection')).toBe(false);
  });

  it('checks dependencies against a user-provided OSV export', async () => {
    const cwd = await example('shop-api');
    const osv = join(cwd, 'osv.json');
    await writeFile(osv, JSON.stringify([{
      id: 'GHSA-test-ejs', summary: 'Template injection in ejs', aliases: ['CVE-2022-29078'], database_specific: { severity: 'CRITICAL' },
      affected: [{ package: { ecosystem: 'npm', name: 'ejs' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }] }],
    }]));
    const report = await runAnalysis('security', { cwd, advisoriesFile: osv });
    const ejs = report.findings.find((finding) => finding.message.includes('GHSA-test-ejs'));
    expect(ejs).toMatchObject({ severity: 'Critical', file: 'package.json', fix: 'Upgrade ejs to 9.0.0 or later ("^3.1.10" never reaches it: change the range in package.json).' });

    await writeFile(osv, '{"nothing": true}');
    const failure = await runAnalysis('security', { cwd, advisoriesFile: osv }).catch((error: unknown) => error);
    expect(isCadreError(failure) && failure.code).toBe('advisories.empty');
  });

  it('scores quality with the documented formula and analyses performance of the React shop', async () => {
    const cwd = await example('react-shop');
    const quality = await runAnalysis('quality', { cwd });
    expect(quality.score?.formula).toContain('penalty');
    expect(quality.score?.value).toBe(Math.max(0, Math.round(100 - ((quality.score?.penalty ?? 0) * 1000) / Math.max(1000, quality.score?.linesOfCode ?? 0))));
    const performance = await runAnalysis('performance', { cwd });
    const rules = performance.findings.map((finding) => finding.ruleId);
    expect(rules).toEqual(expect.arrayContaining(['performance/interval-without-cleanup', 'performance/effect-without-deps']));
    // A cart of a few lines searched per render, and inline props on components that are not memoised, cost nothing worth a finding.
    expect(rules).not.toContain('performance/linear-search-in-loop');
    expect(rules).not.toContain('performance/inline-prop-in-list');
    expect(performance.recommendations.length).toBeGreaterThan(0);
  });

  it('refuses a path outside the project', async () => {
    const cwd = await example('react-shop');
    const failure = await runAnalysis('quality', { cwd, path: '../..' }).catch((error: unknown) => error);
    expect(isCadreError(failure) && failure.code).toBe('analysis.outside-project');
  });
});

describe('report formats', () => {
  it('renders text (with and without colour), SARIF 2.1.0 and Markdown from the same report', async () => {
    const cwd = await example('shop-api');
    const report = await runAnalysis('security', { cwd, cache: false });
    const plain = formatReportText(report, { color: false });
    expect(plain).toContain('Critical: 1');
    expect(plain).toContain('src/routes/products.ts:18');
    expect(plain).not.toContain('\u001b[');
    expect(formatReportText(report, { color: true })).toContain('\u001b[');

    const sarif = toSarif(report) as { version: string; runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; level: string; locations: { physicalLocation: { region: { startLine: number } } }[] }[] }[] };
    expect(sarif.version).toBe('2.1.0');
    const run = sarif.runs[0];
    expect(run?.results).toHaveLength(report.findings.length);
    const ruleIds = new Set(run?.tool.driver.rules.map((rule) => rule.id));
    for (const result of run?.results ?? []) expect(ruleIds.has(result.ruleId)).toBe(true);
    expect(run?.results[0]).toMatchObject({ ruleId: 'security/sql-injection', level: 'error', locations: [{ physicalLocation: { region: { startLine: 18 } } }] });

    const markdown = toMarkdown(report);
    expect(markdown).toContain('| Critical | 1 |');
    expect(markdown).toContain('`src/routes/products.ts:18`');
  });
});
