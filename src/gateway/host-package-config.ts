// What npm and yarn are configured with on this host (registry, CA file), asked once per process and asked again only when a
// configuration file or variable that could change the answer changes: spawning a package manager costs ~0.2 s a question.
import { execFile, type ExecFileException } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export interface PackageConfigQuery {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** What a package manager answered: its trimmed output, or '' and why there is none. */
export interface PackageManagerAnswer {
  value: string;
  /** Set when the package manager gave no answer: missing, refused to print a protected setting, timed out, failed. */
  failure?: string;
}

interface Answer {
  fingerprint: string;
  value: Promise<PackageManagerAnswer>;
}

const answers = new Map<string, Answer>();

/** The files npm and yarn read their configuration from, as far as the host's environment says where they are. */
function configFiles(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? '';
  const prefix = env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX ?? dirname(dirname(process.execPath));
  const files = [
    env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? join(home, '.npmrc'),
    env.npm_config_globalconfig ?? env.NPM_CONFIG_GLOBALCONFIG ?? join(prefix, 'etc', 'npmrc'),
    join(home, '.yarnrc'),
    join(home, '.yarnrc.yml'),
    join(cwd, '.npmrc'),
    join(cwd, '.yarnrc'),
    join(cwd, '.yarnrc.yml'),
  ];
  return [...new Set(files.filter((file) => file !== ''))];
}

/** What the answer depends on: the variables npm and yarn read, which programs PATH finds, and each configuration file's version. */
async function fingerprintOf(cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const variables = Object.entries(env)
    .filter(([name]) => /^(npm_config_|yarn_)/i.test(name) || name === 'PATH' || name === 'HOME')
    .sort(([a], [b]) => a.localeCompare(b));
  const files = await Promise.all(configFiles(cwd, env).map(async (file) => {
    const info = await stat(file).catch(() => undefined);
    return info ? `${file}:${info.mtimeMs}:${info.size}:${info.ino}` : `${file}:-`;
  }));
  return JSON.stringify([variables, files]);
}

/**
 * The trimmed answer of `command ...args` (e.g. `npm config get registry`); '' when the package manager is missing or fails.
 * Cached for the process until the configuration it reads changes.
 */
export async function packageManagerSetting(command: 'npm' | 'yarn', args: readonly string[], query: PackageConfigQuery = {}): Promise<string> {
  return (await packageManagerAnswer(command, args, query)).value;
}

/** As packageManagerSetting, with the reason when there is no answer (for a person: what to do differs). */
export async function packageManagerAnswer(command: 'npm' | 'yarn', args: readonly string[], query: PackageConfigQuery = {}): Promise<PackageManagerAnswer> {
  const env = query.env ?? process.env;
  const cwd = resolve(query.cwd ?? process.cwd());
  const key = JSON.stringify([command, args, cwd]);
  const fingerprint = await fingerprintOf(cwd, env);
  const cached = answers.get(key);
  if (cached?.fingerprint === fingerprint) return cached.value;
  const value = ask(command, args, cwd, env);
  answers.set(key, { fingerprint, value });
  return value;
}

const askTimeoutMs = 15_000;

function ask(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<PackageManagerAnswer> {
  return new Promise((done) => {
    execFile(command, [...args], { cwd, env, timeout: askTimeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (error === null) done({ value: stdout.trim() });
      else done({ value: '', failure: failureOf(command, error, String(stderr)) });
    });
  });
}

/** Why `command` gave no answer, in words that say what to do; never its raw output, which may quote a setting. */
function failureOf(command: string, error: ExecFileException, stderr: string): string {
  if (error.code === 'ENOENT') return `${command} is not installed (not found on PATH)`;
  if (error.killed) return `${command} did not answer within ${askTimeoutMs / 1000} s`;
  // npm refuses to print a setting that holds a credential (a registry URL with a user and password in it).
  if (/option is protected/.test(stderr)) return `${command} would not print the setting: it is protected, as it holds a credential (with the credential in a //host/:_authToken line of .npmrc instead, the setting can be read)`;
  return `${command} failed (exit ${typeof error.code === 'number' ? error.code : 'unknown'})`;
}
