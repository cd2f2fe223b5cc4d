// The dependency check asks npm's registry the way `npm audit` does, on a real project (node-express-boilerplate, whose
// yarn.lock pins express 4.17.1 and body-parser 1.19.0) against a bulk-advisory server on 127.0.0.1 that answers from the
// bundled snapshot's real GitHub advisories: findings name the registry, the answer is cached, and a registry that is
// down, slow, garbled, enormous or off (npm's audit=false, --offline) costs bounded time and falls back to the snapshot.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/run.js';
import { parseAdvisoryExport } from '../../../src/capabilities/analysis/security/advisories.js';
import { loadBundledAdvisories } from '../../../src/capabilities/analysis/security/snapshot.js';
import type { AnalysisReport, RunAnalysisOptions } from '../../../src/capabilities/analysis/types.js';
import { formatReportText } from '../../../src/capabilities/report/text.js';
import { toSarif } from '../../../src/capabilities/report/sarif.js';
import { startAuditRegistry, type AuditRegistry } from '../../support/audit-registry-server.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

const token = 'npm_s3cr3tAuditToken0123456789';
let registry: AuditRegistry;
let home: string;
let project: UnpackedProject;

beforeAll(async () => {
  registry = await startAuditRegistry((await loadBundledAdvisories(parseAdvisoryExport)).advisories);
  home = mkdtempSync(join(tmpdir(), 'cadre-audit-home-'));
  writeFileSync(join(home, '.npmrc'), '');
});
afterAll(async () => {
  await registry.close();
  rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  project = unpackCorpus('node-express-boilerplate');
  registry.mode = 'answer';
  registry.requests.length = 0;
});
afterEach(() => project.dispose());

/** npm reads the project's .npmrc and a user config of the test's own (the host's may say audit=false). */
function withNpmrc(lines: string[]): void {
  writeFileSync(join(project.root, '.npmrc'), `${lines.join('\n')}\n`);
}
const registryNpmrc = (): string[] => [`registry=${registry.url}`, `//${registry.host}/:_authToken=${token}`];
function options(extra: Partial<RunAnalysisOptions> = {}): RunAnalysisOptions {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_userconfig: join(home, '.npmrc'), HOME: home };
  for (const name of Object.keys(env)) if (/^npm_config_(?:audit|offline|registry)$/i.test(name)) delete env[name];
  return { cwd: project.root, env, ...extra };
}

const ghsaBodyParser = 'GHSA-qwcr-r2fm-qrc7';
const bodyParserFinding = (report: AnalysisReport) => report.findings.find((finding) => finding.ruleId === 'security/vulnerable-dependency' && finding.message.startsWith('body-parser@1.19.0'));
const everything = (report: AnalysisReport): string => `${JSON.stringify(report)}\n${formatReportText(report, { color: false })}\n${JSON.stringify(toSarif(report))}`;

describe("the dependency check asks npm's registry", () => {
  it("sends no credential the project's own .npmrc names: a ${VARIABLE} there would send any of the person's environment to a host the project picks", async () => {
    withNpmrc([`registry=${registry.url}`, `//${registry.host}/:_authToken=\${CADRE_TEST_EXFILTRATED}`]);
    const report = await runAnalysis('security', { ...options(), env: { ...options().env, CADRE_TEST_EXFILTRATED: token } });
    expect(registry.requests).toHaveLength(1);
    expect(registry.requests[0]?.authorization).toBeUndefined();
    expect(report.advisories).toMatchObject({ kind: 'registry' });
  });

  it('reports what the registry says, names it as the source, sends the .npmrc token and shows it nowhere; a warm run asks nothing', async () => {
    // The token is the person's (their own .npmrc), the registry the project's.
    withNpmrc([`registry=${registry.url}`]);
    writeFileSync(join(home, '.npmrc'), `//${registry.host}/:_authToken=${token}\n`);
    onTestFinished(() => writeFileSync(join(home, '.npmrc'), ''));
    const cold = await runAnalysis('security', options());
    expect(registry.requests).toHaveLength(1);
    const [request] = registry.requests;
    expect(request?.body['body-parser']).toEqual(['1.19.0']);
    expect(request?.body.express).toEqual(['4.17.1']);
    expect(request?.authorization).toBe(`Bearer ${token}`);
    expect(cold.advisories).toMatchObject({ kind: 'registry', host: registry.host });
    // The registry's record carries its advisory page; the bundled one does not: this finding came from the registry.
    const finding = bodyParserFinding(cold);
    expect(finding?.message).toContain(`https://github.com/advisories/${ghsaBodyParser}`);
    // Merged with the bundled snapshot's copy of the same advisory without repeating it.
    expect(finding?.message.split(ghsaBodyParser)).toHaveLength(3);
    expect(formatReportText(cold, { color: false })).toContain(`Advisories: registry ${registry.host} at ${cold.advisories?.kind === 'registry' ? cold.advisories.fetchedAt : ''}`);
    expect(JSON.stringify(toSarif(cold))).toContain(`advisories: registry ${registry.host}`);
    expect(everything(cold)).not.toContain(token);

    const warm = await runAnalysis('security', options());
    expect(registry.requests).toHaveLength(1);
    expect(warm.filesReused).toBe(warm.filesAnalyzed);
    expect(warm.findings).toEqual(cold.findings);
    // Without the report cache, the day's cached answer still spares the request.
    await rm(join(project.root, '.cadre', 'analysis-security.report.json'));
    const again = await runAnalysis('security', options());
    expect(registry.requests).toHaveLength(1);
    expect(bodyParserFinding(again)?.message).toContain(`https://github.com/advisories/${ghsaBodyParser}`);
    expect(everything(again)).not.toContain(token);
  });

  it('asks again once the answer is a day old, and the warm report no longer answers', async () => {
    withNpmrc(registryNpmrc());
    await runAnalysis('security', options());
    await runAnalysis('security', options());
    expect(registry.requests).toHaveLength(1);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 25 * 60 * 60 * 1000 });
    try {
      const dayLater = await runAnalysis('security', options());
      expect(registry.requests).toHaveLength(2);
      expect(dayLater.advisories).toMatchObject({ kind: 'registry', fetchedAt: new Date().toISOString() });
    } finally {
      vi.useRealTimers();
    }
  });

  it("asks nothing when npm's audit setting is false, or with --offline, and says so", async () => {
    withNpmrc([...registryNpmrc(), 'audit=false']);
    const audit = await runAnalysis('security', options({ cache: false }));
    expect(audit.advisories).toMatchObject({ kind: 'bundled', reason: "the registry was not asked: npm's audit setting is false" });
    withNpmrc(registryNpmrc());
    const offline = await runAnalysis('security', options({ offline: true }));
    expect(registry.requests).toHaveLength(0);
    expect(offline.advisories).toMatchObject({ kind: 'bundled', reason: 'the registry was not asked (--offline)' });
    expect(formatReportText(offline, { color: false })).toMatch(/Advisories: bundled snapshot \(\d+ advisories, \d{4}-\d{2}-\d{2}\); the registry was not asked \(--offline\)/);
    // The bundled snapshot still finds what it knows.
    expect(bodyParserFinding(offline)?.message).toContain(ghsaBodyParser);
    // An --offline report is not the answer to a run that may ask.
    await runAnalysis('security', options());
    expect(registry.requests).toHaveLength(1);
  });

  for (const [mode, reason] of [
    ['slow', /did not answer within 5 s/],
    ['garbage', /not JSON/],
    ['huge', /larger than 16 MB/],
    ['unauthorised', /HTTP 401/],
  ] as const) {
    it(`falls back to the bundled snapshot, in bounded time, when the registry is ${mode}`, async () => {
      withNpmrc(registryNpmrc());
      registry.mode = mode;
      const started = performance.now();
      const report = await runAnalysis('security', options());
      expect(performance.now() - started).toBeLessThan(12_000);
      expect(report.advisories).toMatchObject({ kind: 'bundled', failed: true });
      expect(report.advisories?.kind === 'bundled' ? report.advisories.reason : '').toMatch(reason);
      expect(formatReportText(report, { color: false })).toContain(`the registry ${registry.host} could not be used`);
      expect(bodyParserFinding(report)?.message).toContain(ghsaBodyParser);
      expect(everything(report)).not.toContain(token);
      // A failed registry is asked again next time, not hidden behind the report cache.
      registry.mode = 'answer';
      const next = await runAnalysis('security', options());
      expect(next.advisories).toMatchObject({ kind: 'registry' });
    }, 30_000);
  }

  it('falls back when nothing listens at the registry', async () => {
    const gone = await startAuditRegistry([]);
    await gone.close();
    withNpmrc([`registry=${gone.url}`]);
    const report = await runAnalysis('security', options({ cache: false }));
    expect(report.advisories?.kind === 'bundled' ? report.advisories.reason : '').toMatch(/could not be reached \(ECONNREFUSED\)/);
    expect(bodyParserFinding(report)?.message).toContain(ghsaBodyParser);
  });

  it("says why npm gave no registry: a setting it will not print (a password in the URL), or no npm at all; never 'is npm installed?' for the first", async () => {
    const password = 'pa55-in-the-registry-url';
    withNpmrc([`registry=http://someone:${password}@${registry.host}/`]);
    const protectedReport = await runAnalysis('security', options({ cache: false }));
    expect(protectedReport.advisories).toMatchObject({ kind: 'bundled' });
    const reason = protectedReport.advisories?.kind === 'bundled' ? protectedReport.advisories.reason : '';
    expect(reason).toMatch(/npm would not print the setting: it is protected, as it holds a credential \(with the credential in a \/\/host\/:_authToken line of \.npmrc instead/);
    expect(reason).not.toMatch(/installed/);
    expect(everything(protectedReport)).not.toContain(password);
    expect(registry.requests).toHaveLength(0);

    withNpmrc([`registry=${registry.url}`]);
    const emptyPath = mkdtempSync(join(tmpdir(), 'cadre-no-npm-'));
    onTestFinished(() => rmSync(emptyPath, { recursive: true, force: true }));
    const missing = await runAnalysis('security', { ...options({ cache: false }), env: { ...options().env, PATH: emptyPath } });
    expect(missing.advisories?.kind === 'bundled' ? missing.advisories.reason : '').toMatch(/npm is not installed \(not found on PATH\)/);
    expect(bodyParserFinding(missing)?.message).toContain(ghsaBodyParser);
  });

  for (const [name, lockfile, locked] of [
    ['koa-typescript-rest', 'package-lock.json v1', { koa: ['2.13.1'], 'koa-router': ['7.4.0'] }],
    ['shadcn-admin', 'pnpm-lock.yaml v9', { react: ['19.2.5'], vite: ['8.0.8'] }],
  ] as const) {
    it(`sends the versions ${name}'s ${lockfile} pins`, async () => {
      const other = unpackCorpus(name);
      try {
        writeFileSync(join(other.root, '.npmrc'), `registry=${registry.url}\n`);
        const report = await runAnalysis('security', { ...options({ cache: false }), cwd: other.root });
        expect(report.advisories).toMatchObject({ kind: 'registry', host: registry.host });
        expect(registry.requests).toHaveLength(1);
        expect(registry.requests[0]?.authorization).toBeUndefined();
        expect(registry.requests[0]?.body).toMatchObject(locked);
      } finally {
        other.dispose();
      }
    });
  }
});
