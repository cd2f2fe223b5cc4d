// Config: layering defaults < user < project < env < flags, where each value came from, and errors that name file, key and what is allowed.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeConfig, renderConfigText } from '../../src/store/config-describe.js';
import { loadConfig } from '../../src/store/config.js';
import { trustFingerprint } from '../../src/store/config-trust.js';
import { CadreError } from '../../src/errors.js';
import { tempDir } from './temp.js';

async function setup(files: { user?: string; project?: string } = {}) {
  const home = await tempDir();
  const cwd = await tempDir();
  const userFile = join(home, 'config.json');
  const projectFile = join(cwd, '.cadre', 'config.json');
  if (files.user !== undefined) await writeFile(userFile, files.user);
  if (files.project !== undefined) {
    await mkdir(join(cwd, '.cadre'), { recursive: true });
    await writeFile(projectFile, files.project);
  }
  // The fingerprint a person trusting the folder would give loadConfig (the tests of layering take the project whole).
  const parsed = files.project === undefined ? undefined : (() => { try { return JSON.parse(files.project) as Record<string, unknown>; } catch { return undefined; } })();
  const trustedProject = parsed === undefined ? undefined : trustFingerprint(parsed);
  return { cwd, env: { CADRE_HOME: home } as Record<string, string>, userFile, projectFile, trustedProject };
}

async function failure(promise: Promise<unknown>): Promise<CadreError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CadreError);
  return error as CadreError;
}

describe('loadConfig', () => {
  it('gives the defaults with no files, no variables and no flags', async () => {
    const { cwd, env } = await setup();
    const { config, sources } = await loadConfig({ cwd, env });
    expect(config.model.provider).toBe('offline');
    expect(config.vm).toMatchObject({ memory: '2GB', cpu: 2, timeoutMinutes: 30, tokenBudget: 50_000, networkIsolation: false });
    expect(config.exec.timeoutSeconds).toBe(600);
    expect(config.permissions.read.deny).toEqual(expect.arrayContaining(['.env*', '.git/**', '**/*.pem', '**/id_rsa*', '**/*.key']));
    expect(config.audit.enabled).toBe(true);
    expect(sources.get('vm.memory')).toEqual({ layer: 'default', origin: 'built-in default' });
  });

  it('layers user < project < environment < flags and records where each value came from', async () => {
    const { cwd, env, userFile, projectFile, trustedProject } = await setup({
      user: JSON.stringify({ vm: { cpu: 4, memory: '8GB' }, model: { name: 'from-user' }, permissions: { read: { deny: ['secrets/**'] } } }),
      project: JSON.stringify({ vm: { cpu: 8 }, git: { authorName: 'Ada' } }),
    });
    const { config, sources } = await loadConfig({
      cwd,
      trustedProject,
      env: { ...env, CADRE_VM_MEMORY: '4GB', CADRE_MODEL: 'from-env', CADRE_ALLOWED_DOMAINS: 'a.example, b.example' },
      flags: { vm: { timeoutMinutes: 5 }, model: { name: 'from-flag' } },
    });
    expect(config.vm.cpu).toBe(8);
    expect(sources.get('vm.cpu')).toEqual({ layer: 'project', origin: projectFile });
    expect(config.git.authorName).toBe('Ada');
    expect(config.vm.memory).toBe('4GB');
    expect(sources.get('vm.memory')).toEqual({ layer: 'env', origin: 'CADRE_VM_MEMORY' });
    expect(config.vm.allowedDomains).toEqual(['a.example', 'b.example']);
    expect(config.model.name).toBe('from-flag');
    expect(sources.get('model.name')).toEqual({ layer: 'flag', origin: 'command line' });
    expect(config.vm.timeoutMinutes).toBe(5);
    // A deny list from a layer adds to the defaults instead of replacing them.
    expect(config.permissions.read.deny).toEqual(expect.arrayContaining(['.env*', 'secrets/**']));
    expect(sources.get('permissions.read.deny')).toEqual({ layer: 'user', origin: userFile });
  });

  it("takes the provider's key variable only for that provider, and CADRE_API_KEY over it", async () => {
    const { cwd, env, trustedProject } = await setup({ project: JSON.stringify({ model: { provider: 'anthropic' } }) });
    const keys = { ANTHROPIC_API_KEY: 'sk-ant-from-anthropic-var', OPENAI_API_KEY: 'sk-from-openai-var-123456789', GITHUB_TOKEN: 'ghp_fromgithubtokenvar0000' };
    const anthropic = await loadConfig({ cwd, trustedProject, env: { ...env, ...keys } });
    expect(anthropic.config.model.apiKey).toBe(keys.ANTHROPIC_API_KEY);
    expect(anthropic.sources.get('model.apiKey')).toEqual({ layer: 'env', origin: 'ANTHROPIC_API_KEY' });
    expect(anthropic.config.github.token).toBe(keys.GITHUB_TOKEN);
    const openai = await loadConfig({ cwd, trustedProject, env: { ...env, ...keys, CADRE_PROVIDER: 'openai' } });
    expect(openai.config.model.apiKey).toBe(keys.OPENAI_API_KEY);
    const explicit = await loadConfig({ cwd, trustedProject, env: { ...env, ...keys, CADRE_API_KEY: 'explicit-key-value' } });
    expect(explicit.config.model.apiKey).toBe('explicit-key-value');
    expect(explicit.sources.get('model.apiKey')?.origin).toBe('CADRE_API_KEY');
  });

  it('names the file, the key path and the allowed keys for an unknown key', async () => {
    const { cwd, env, projectFile } = await setup({ project: JSON.stringify({ vm: { memroy: '4GB' } }) });
    const error = await failure(loadConfig({ cwd, env }));
    expect(error.code).toBe('config.invalid');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(projectFile);
    expect(error.message).toContain('vm.memroy');
    expect(error.message).toMatch(/allowed here: memory, cpu, pids, disk, timeoutMinutes/);
  });

  it('names the key path and what is allowed for a wrong type or value', async () => {
    const typed = await setup({ user: JSON.stringify({ vm: { cpu: 'four' } }) });
    const typeError = await failure(loadConfig({ cwd: typed.cwd, env: typed.env }));
    expect(typeError.message).toContain(typed.userFile);
    expect(typeError.message).toMatch(/vm\.cpu: .*expected number.*got "four"/);
    const valued = await setup({ user: JSON.stringify({ model: { provider: 'gpt' }, vm: { memory: 'lots' } }) });
    const valueError = await failure(loadConfig({ cwd: valued.cwd, env: valued.env }));
    expect(valueError.message).toMatch(/model\.provider: .*"offline"\|"anthropic"\|"openai"\|"openai-compatible"/);
    expect(valueError.message).toMatch(/vm\.memory: memory "lots" is not a size with a unit: write it like 4GB or 512MB/);
  });

  it('names the file, line and column of a JSON syntax error', async () => {
    const { cwd, env, projectFile } = await setup({ project: '{\n  "vm": {\n    "cpu": 2,\n  }\n}\n' });
    const error = await failure(loadConfig({ cwd, env }));
    expect(error.code).toBe('config.invalid');
    expect(error.message).toContain(`${projectFile} at line 4, column 3`);
  });

  it('names the environment variable that holds a bad value', async () => {
    const { cwd, env } = await setup();
    const notNumber = await failure(loadConfig({ cwd, env: { ...env, CADRE_VM_CPU: 'lots' } }));
    expect(notNumber.message).toContain('CADRE_VM_CPU');
    const badSize = await failure(loadConfig({ cwd, env: { ...env, CADRE_VM_MEMORY: 'huge' } }));
    expect(badSize.message).toMatch(/environment variable CADRE_VM_MEMORY at vm\.memory/);
  });

  it('takes CADRE_VM_CPU in the values vm.cpu takes in a file: fractions of a core, within the settings schema', async () => {
    const { cwd, env } = await setup();
    const { config, sources } = await loadConfig({ cwd, env: { ...env, CADRE_VM_CPU: '1.5' } });
    expect(config.vm.cpu).toBe(1.5);
    expect(sources.get('vm.cpu')).toEqual({ layer: 'env', origin: 'CADRE_VM_CPU' });
    expect((await loadConfig({ cwd, env: { ...env, CADRE_VM_CPU: ' 0.25 ' } })).config.vm.cpu).toBe(0.25);
    const tooSmall = await failure(loadConfig({ cwd, env: { ...env, CADRE_VM_CPU: '0.001' } }));
    expect(tooSmall.message).toMatch(/environment variable CADRE_VM_CPU at vm\.cpu: below 0\.01 cores/);
    const notNumber = await failure(loadConfig({ cwd, env: { ...env, CADRE_VM_CPU: '1,5' } }));
    expect(notNumber.message).toBe('Invalid config in environment variable CADRE_VM_CPU: "1,5" is not a number (a fraction allowed, like 1.5).');
    expect(notNumber.remedy).toBe('Set CADRE_VM_CPU to a number (a fraction allowed, like 1.5), or unset it.');
  });

  it('requires a base URL for an openai-compatible server', async () => {
    const { cwd, env } = await setup();
    const error = await failure(loadConfig({ cwd, env: { ...env, CADRE_PROVIDER: 'openai-compatible' } }));
    expect(error.message).toMatch(/model\.baseUrl is required .* \(set by CADRE_PROVIDER\)/);
    const ok = await loadConfig({ cwd, env: { ...env, CADRE_PROVIDER: 'openai-compatible', CADRE_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(ok.config.model.baseUrl).toBe('http://127.0.0.1:9/v1');
  });

  it('lets an unset flag leave the lower layers alone', async () => {
    const { cwd, env, trustedProject } = await setup({ project: JSON.stringify({ vm: { cpu: 6 } }) });
    const { config, sources } = await loadConfig({ cwd, env, trustedProject, flags: { vm: { cpu: undefined }, model: { name: undefined } } });
    expect(config.vm.cpu).toBe(6);
    expect(sources.get('vm.cpu')?.layer).toBe('project');
  });

  it('rejects flags with a bad value, naming the command line', async () => {
    const { cwd, env } = await setup();
    const error = await failure(loadConfig({ cwd, env, flags: { vm: { cpu: 0 } } }));
    expect(error.message).toMatch(/command line at vm\.cpu/);
  });
});

describe('describeConfig', () => {
  it('lists every key with its source and masks secrets', async () => {
    const { cwd, env, userFile } = await setup({
      user: JSON.stringify({ model: { provider: 'openai', apiKey: 'sk-user-secret-value-1234567890' }, vm: { env: { NPM_TOKEN: 'npm_secret_value_123', NODE_ENV: 'test' } } }),
    });
    const description = describeConfig(await loadConfig({ cwd, env: { ...env, GITHUB_TOKEN: 'short' } }));
    const row = (key: string) => description.rows.find((candidate) => candidate.key === key);
    expect(row('model.apiKey')).toMatchObject({ value: 'sk-u…', source: `user ${userFile}` });
    expect(row('github.token')).toMatchObject({ value: '••••', source: 'env GITHUB_TOKEN' });
    expect(row('vm.env.NPM_TOKEN')?.value).toBe('npm_…');
    expect(row('vm.env.NODE_ENV')?.value).toBe('"test"');
    expect(row('model.name')).toMatchObject({ value: '(not set)', source: '' });
    expect(row('vm.memory')).toMatchObject({ value: '2GB', source: 'default' });
    const text = renderConfigText(description);
    expect(text).not.toContain('secret-value');
    expect(text).toMatch(/^vm\.cpu +2 +default$/m);
  });
});
