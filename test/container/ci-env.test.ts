// The CI workflow reader on luxon's real workflow (its test job sets TZ), on dicom-deidentifier-ts's (a time-zone action sets
// it) and on hostile workspaces: links, huge files, expressions, secrets, non-string values, bad names, aliases, broken YAML.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ciEnvHint, readCiEnv } from '../../src/container/ci-env.js';
import { unpackVendored } from '../support/corpus.js';

const luxonWorkflow = readFileSync(join(import.meta.dirname, '../fixtures/real/luxon-ci/test.yml'), 'utf8');
const made: string[] = [];

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
  it("reads the env of luxon's real test job, strings as written (YAML 1.2: `yes` stays a string)", async () => {
    const vars = await readCiEnv(workspace({ 'test.yml': luxonWorkflow }));
    expect(vars).toEqual([
      { name: 'LANG', value: 'en_US.utf8', file: '.github/workflows/test.yml' },
      { name: 'LIMIT_JEST', value: 'yes', file: '.github/workflows/test.yml' },
      { name: 'TZ', value: 'America/New_York', file: '.github/workflows/test.yml' },
    ]);
  });

  it('offers only what the container lacks, with the exact /vm-config command', async () => {
    const vars = await readCiEnv(workspace({ 'test.yml': luxonWorkflow }));
    expect(ciEnvHint(vars, { LANG: 'C.UTF-8', LIMIT_JEST: 'yes' }, 'vm-3f2a')).toBe(
      "The project's CI (.github/workflows/test.yml) sets TZ=America/New_York for its tests; this container has no TZ: /vm-config --env \"TZ=America/New_York\" --container vm-3f2a if its tests depend on it");
    expect(ciEnvHint(vars, { LANG: 'x', LIMIT_JEST: 'x', TZ: 'UTC' }, 'vm-3f2a')).toBeUndefined();
  });

  it('takes workflow, job and test-step env of jobs that run tests only, and skips expressions, secrets and non-strings', async () => {
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
        '    steps:',
        '      - run: npm ci',
        '        env: { INSTALL_ONLY: "1" }',
        '      - run: npm test',
        '        env: { STEP: "s" }',
      ].join('\n'),
    }));
    expect(vars.map(({ name, value }) => `${name}=${value}`)).toEqual(['TOP=1', 'GOOD=fine', 'STEP=s']);
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
    writeFileSync(join(secretDir, 'outside.yml'), luxonWorkflow);
    const linked = workspace({});
    symlinkSync(join(secretDir, 'outside.yml'), join(linked, '.github', 'workflows', 'test.yml'));
    expect(await readCiEnv(linked)).toEqual([]);

    const linkedFolder = mkdtempSync(join(tmpdir(), 'cadre-ci-env-'));
    made.push(linkedFolder);
    mkdirSync(join(linkedFolder, '.github'));
    symlinkSync(secretDir, join(linkedFolder, '.github', 'workflows'));
    expect(await readCiEnv(linkedFolder)).toEqual([]);

    const huge = `${luxonWorkflow}\n# ${'x'.repeat(300 * 1024)}\n`;
    expect(await readCiEnv(workspace({ 'test.yml': huge }))).toEqual([]);
    expect(await readCiEnv(workspace({ 'test.yml': `${luxonWorkflow}\n  : [unclosed` }))).toEqual([]);

    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`), 'jobs: { t: { env: { TZ: UTC }, steps: [{ run: npm test }] } }'].join('\n');
    expect(await readCiEnv(workspace({ 'bomb.yml': bomb }))).toEqual([]);

    expect(await readCiEnv(mkdtempSync(join(tmpdir(), 'cadre-ci-env-none-')))).toEqual([]);
  });
});
