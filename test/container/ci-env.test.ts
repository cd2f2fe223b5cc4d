// The CI workflow reader on fastify-demo's real workflow (its test step sets env), on dicom-deidentifier-ts's (a time-zone action
// sets TZ) and on hostile workspaces: links, huge files, expressions, secrets, non-string values, bad names, aliases, broken YAML.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ciEnvHint, readCiEnv } from '../../src/container/ci-env.js';
import { unpackCorpus, unpackVendored } from '../support/corpus.js';

/** fastify-demo's real `.github/workflows/ci.yml` (corpus): a MySQL service's env, and the env of its `npm run test` step. */
let realWorkflow = '';
const made: string[] = [];
/** What fastify-demo's test step sets, as the runner sets it: numbers too (its tests rely on RATE_LIMIT_MAX: 4). */
const fastifyTestEnv = [
  { name: 'MYSQL_HOST', value: 'localhost', file: '.github/workflows/ci.yml' },
  { name: 'MYSQL_PORT', value: '3306', file: '.github/workflows/ci.yml' },
  { name: 'MYSQL_DATABASE', value: 'test_db', file: '.github/workflows/ci.yml' },
  { name: 'MYSQL_USER', value: 'test_user', file: '.github/workflows/ci.yml' },
  { name: 'MYSQL_PASSWORD', value: 'test_password', file: '.github/workflows/ci.yml' },
  { name: 'COOKIE_NAME', value: 'sessid', file: '.github/workflows/ci.yml' },
  { name: 'RATE_LIMIT_MAX', value: '4', file: '.github/workflows/ci.yml' },
  { name: 'CAN_SEED_DATABASE', value: '1', file: '.github/workflows/ci.yml' },
];

beforeAll(() => {
  const copy = unpackCorpus('fastify-demo');
  try {
    realWorkflow = readFileSync(join(copy.root, '.github', 'workflows', 'ci.yml'), 'utf8');
  } finally {
    copy.dispose();
  }
});

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-ci-env-'));
  made.push(dir);
  mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, '.github', 'workflows', name), text);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('readCiEnv', () => {
  it("reads the env of fastify-demo's real test step, strings as written, not its MySQL service's env nor another workflow's", async () => {
    const copy = unpackCorpus('fastify-demo');
    try {
      expect(await readCiEnv(copy.root)).toEqual(fastifyTestEnv);
    } finally {
      copy.dispose();
    }
  });

  it('offers only what the container lacks, with the exact /vm-config command', async () => {
    const vars = await readCiEnv(workspace({ 'ci.yml': realWorkflow }));
    expect(vars).toEqual(fastifyTestEnv);
    const has = { MYSQL_HOST: 'mysql', MYSQL_PORT: '3306', MYSQL_DATABASE: 'app', MYSQL_USER: 'u', MYSQL_PASSWORD: 'p', RATE_LIMIT_MAX: '4', CAN_SEED_DATABASE: '1' };
    expect(ciEnvHint(vars, has, 'vm-3f2a')).toBe(
      "The project's CI (.github/workflows/ci.yml) sets COOKIE_NAME=sessid for its tests; this container has no COOKIE_NAME: /vm-config --env \"COOKIE_NAME=sessid\" --container vm-3f2a if its tests depend on it");
    expect(ciEnvHint(vars, { ...has, MYSQL_DATABASE: undefined }, 'vm-3f2a')).toBe(
      "The project's CI (.github/workflows/ci.yml) sets MYSQL_DATABASE=test_db COOKIE_NAME=sessid for its tests; this container has no MYSQL_DATABASE, COOKIE_NAME: /vm-config --env \"MYSQL_DATABASE=test_db,COOKIE_NAME=sessid\" --container vm-3f2a if its tests depend on them");
    expect(ciEnvHint(vars, { ...has, COOKIE_NAME: 'x' }, 'vm-3f2a')).toBeUndefined();
  });

  it('takes workflow, job and test-step env of jobs that run tests only, strings as written (YAML 1.2: `yes` stays a string), numbers and booleans as their text, and skips expressions, secrets and lists', async () => {
    const vars = await readCiEnv(workspace({
      'ci.yaml': [
        'env: { TOP: "1", FROM_EXPR: "${{ matrix.node }}" }',
        'jobs:',
        '  lint:',
        '    env: { LINT_ONLY: "1" }',
        '    steps: [{ run: npm run lint }]',
        '  test:',
        '    env:',
        '      NUMBER: 3',
        '      FLAG: true',
        '      TOKEN: "prefix-secrets.NPM_TOKEN"',
        '      "BAD-NAME": "x"',
        '      "1BAD": "x"',
        '      LIST: [a, b]',
        '      COMMA: "a,b"',
        '      QUOTE: "say \\"hi\\""',
        '      DOLLAR: "$HOME/x"',
        '      NEWLINE: "a\\nb"',
        '      GOOD: fine',
        '      AS_WRITTEN: yes',
        '    steps:',
        '      - run: npm ci',
        '        env: { INSTALL_ONLY: "1" }',
        '      - run: npm test',
        '        env: { STEP: "s" }',
      ].join('\n'),
    }));
    expect(vars.map(({ name, value }) => `${name}=${value}`)).toEqual(['TOP=1', 'NUMBER=3', 'FLAG=true', 'GOOD=fine', 'AS_WRITTEN=yes', 'STEP=s']);
  });

  it("reads the zone a time-zone action sets before the tests (dicom-deidentifier-ts's real workflow: setup-timezone, Europe/Berlin)", async () => {
    const copy = unpackVendored('dicom-deidentifier-ts');
    try {
      expect(await readCiEnv(copy.root)).toEqual([{ name: 'TZ', value: 'Europe/Berlin', file: '.github/workflows/npm-publish.yaml' }]);
    } finally {
      copy.dispose();
    }
  });

  it('takes the zone of szenius/set-timezone before a test step; an env TZ wins; no UTC, no zone after the tests, no odd value', async () => {
    const job = (steps: string[], env = '') => ['jobs:', '  test:', ...(env ? [`    env: { ${env} }`] : []), '    steps:', ...steps].join('\n');
    const action = (zone: string) => `      - { uses: szenius/set-timezone@v2.0, with: { timezoneLinux: "${zone}", timezoneMacos: "Asia/Tokyo" } }`;
    const read = async (text: string) => (await readCiEnv(workspace({ 'ci.yml': text }))).map(({ name, value }) => `${name}=${value}`);
    expect(await read(job([action('America/Sao_Paulo'), '      - run: npm ci', '      - run: npm test']))).toEqual(['TZ=America/Sao_Paulo']);
    expect(await read(job([action('America/Sao_Paulo'), '      - run: npm test'], 'TZ: Asia/Kolkata'))).toEqual(['TZ=Asia/Kolkata']);
    expect(await read(job([action('UTC'), '      - run: npm test']))).toEqual([]);
    expect(await read(job(['      - run: npm test', action('Europe/Paris')]))).toEqual([]);
    for (const zone of ['$(id)', 'Europe/Paris,LD_PRELOAD=x', '../../etc/passwd', 'Europe Paris', '${{ matrix.tz }}']) expect(await read(job([action(zone), '      - run: npm test']))).toEqual([]);
  });

  it('follows no link (a file or the folder), and reads no file over the bound, no broken YAML, no alias bomb', async () => {
    const secretDir = mkdtempSync(join(tmpdir(), 'cadre-ci-env-outside-'));
    made.push(secretDir);
    writeFileSync(join(secretDir, 'outside.yml'), realWorkflow);
    const linked = workspace({});
    symlinkSync(join(secretDir, 'outside.yml'), join(linked, '.github', 'workflows', 'test.yml'));
    expect(await readCiEnv(linked)).toEqual([]);

    const linkedFolder = mkdtempSync(join(tmpdir(), 'cadre-ci-env-'));
    made.push(linkedFolder);
    mkdirSync(join(linkedFolder, '.github'));
    symlinkSync(secretDir, join(linkedFolder, '.github', 'workflows'));
    expect(await readCiEnv(linkedFolder)).toEqual([]);

    const huge = `${realWorkflow}\n# ${'x'.repeat(300 * 1024)}\n`;
    expect(await readCiEnv(workspace({ 'test.yml': huge }))).toEqual([]);
    expect(await readCiEnv(workspace({ 'test.yml': `${realWorkflow}\n  : [unclosed` }))).toEqual([]);

    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`), 'jobs: { t: { env: { TZ: UTC }, steps: [{ run: npm test }] } }'].join('\n');
    expect(await readCiEnv(workspace({ 'bomb.yml': bomb }))).toEqual([]);

    expect(await readCiEnv(mkdtempSync(join(tmpdir(), 'cadre-ci-env-none-')))).toEqual([]);
  });
});
