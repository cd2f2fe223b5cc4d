// Issue 32's misses on real material: CSRF on chained route declarations, CORS reflecting any origin with credentials, JWT options accepting alg "none", NoSQL filters built in a variable.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { unpackCorpus } from '../../support/corpus.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/real');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A fresh copy of a vendored fixture folder. */
function copyFixture(path: string): string {
  const root = mkdtempSync(join(tmpdir(), 'cadre-misses-'));
  cpSync(join(fixtures, path), root, { recursive: true });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

function corpusCopy(name: string): string {
  const project = unpackCorpus(name);
  cleanups.push(project.dispose);
  return project.root;
}

async function found(root: string, ruleId: string): Promise<string[]> {
  const report = await runAnalysis('security', { cwd: root, cache: false });
  return report.findings.filter((finding) => finding.ruleId === ruleId).map((finding) => `${finding.severity} ${finding.file}:${finding.line}`).sort();
}

describe('CSRF routes declared as router.route(p).get(…).post(…)', () => {
  it('vulnerable-node: the purchase route declared as a chain is reported as it is when declared with router.all', async () => {
    const root = corpusCopy('vulnerable-node');
    const file = join(root, 'routes', 'products.js');
    const source = readFileSync(file, 'utf8');
    // The same handler, registered for GET and POST through one route chain (what express.Router users write).
    const chained = source.replace("router.all('/products/buy', function", "router.route('/products/buy').get(function (req, res, next) { next('route'); }).post(function");
    expect(chained).not.toBe(source);
    writeFileSync(file, chained);
    const report = await runAnalysis('security', { cwd: root, cache: false });
    const csrf = report.findings.filter((finding) => finding.ruleId === 'security/csrf');
    expect(csrf.map((finding) => `${finding.file}:${finding.line}`)).toEqual(['routes/products.js:89']);
    expect(csrf[0]?.message).toMatch(/^POST \/products\/buy /);
  });

  it('node-express-boilerplate (route chains, bearer tokens, no cookies) gains no CSRF finding', async () => {
    expect(await found(corpusCopy('node-express-boilerplate'), 'security/csrf')).toEqual([]);
  });
});

describe('a use() mount of a server that changes state is a route', () => {
  it("express-graphql's README: the GraphQL endpoint behind express-session, which reads form posts itself, lacks CSRF protection", async () => {
    expect(await found(copyFixture('express-graphql-session'), 'security/csrf')).toEqual(['Medium server.js:8']);
  });
});

describe('cookie authentication decided from what the middleware does', () => {
  it('secDevLabs Tic-Tac-Toe: its cookie-JWT check still authenticates the game route once it is no longer named verifyJWT', async () => {
    const root = copyFixture('secdevlabs-tictactoe');
    const file = join(root, 'src', 'app.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\bverifyJWT\b/g, 'gate'));
    expect(await found(root, 'security/csrf')).toEqual(['Medium src/app.js:56']);
  });
});

describe('CORS that reflects any origin with credentials is its own finding', () => {
  it('codeql CWE-346 tst.js: the origin taken from the request and sent back with credentials', async () => {
    // The file's own marking: line 13 (origin from the query string, credentials true) is the first NOT OK; the checked origins (ifs) are OK.
    expect(await found(copyFixture('codeql-js-security/cors'), 'security/cors-any-origin')).toEqual(['High tst.js:13']);
  });
});

describe('JWT verification options that accept alg "none"', () => {
  it('codeql CWE-347 bad-jwt.js: every verify listing "none"; High where the key is empty', async () => {
    expect(await found(copyFixture('codeql-js-security/jwt'), 'security/jwt-none-accepted')).toEqual([
      'High bad-jwt.js:10', 'High bad-jwt.js:11', 'High bad-jwt.js:12', 'Medium bad-jwt.js:6',
    ]);
  });
});

describe('NoSQL filters built in a variable and passed to find(query)', () => {
  it('secDevLabs Stegonography: the login filter built from the JSON body', async () => {
    expect(await found(copyFixture('secdevlabs-stegonography'), 'security/nosql-injection')).toEqual(['High index.js:75']);
  });

  it('codeql untyped/mongodb.js: the filters filled in from the request are found, the coerced ones are not', async () => {
    const lines = await found(copyFixture('codeql-js-security/nosql'), 'security/nosql-injection');
    // Marked `$ Alert` on find(): 17, 30, 51, 61, 105. Marked OK: 20 (''+), 23 (.substr), 41 and 92 (route parameters).
    expect(lines).toEqual(expect.arrayContaining(['High mongodb.js:17', 'High mongodb.js:30', 'High mongodb.js:51', 'High mongodb.js:61', 'High mongodb.js:105']));
    for (const ok of [20, 23, 41, 92]) expect(lines).not.toContain(`High mongodb.js:${ok}`);
  });
});
