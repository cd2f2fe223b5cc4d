// What npm and yarn are configured with on this host (registry, CA file), asked once and asked again only when a
// configuration file, variable or program that could change the answer changes: spawning a package manager costs ~0.2 s a
// question. Answers are kept across cadre processes too (package-config-store.ts), under the same fingerprint.
import { execFile, type ExecFileException } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile, realpath, stat } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { packageConfigStorePath, storedPackageAnswer, storePackageAnswer } from './package-config-store.js';

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

/** The folder `cwd` and each one above it: npm takes a project's .npmrc from the nearest folder with a package.json, yarn looks up too. */
function folderAndAncestors(cwd: string): string[] {
  const folders = [cwd];
  while (dirname(folders.at(-1)!) !== folders.at(-1)) folders.push(dirname(folders.at(-1)!));
  return folders;
}

/** The files npm and yarn read their configuration from, as far as the host's environment says where they are. */
function configFiles(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? '';
  const prefix = env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX ?? dirname(dirname(process.execPath));
  const files = [
    env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? join(home, '.npmrc'),
    env.npm_config_globalconfig ?? env.NPM_CONFIG_GLOBALCONFIG ?? join(prefix, 'etc', 'npmrc'),
    join(home, '.yarnrc'),
    join(home, '.yarnrc.yml'),
    ...folderAndAncestors(cwd).flatMap((folder) => [join(folder, '.npmrc'), join(folder, '.yarnrc'), join(folder, '.yarnrc.yml')]),
  ];
  return [...new Set(files.filter((file) => file !== ''))];
}

/**
 * The program `command` PATH finds, followed to its real file, with the package.json beside it (its version) and npm's own
 * built-in npmrc: an upgrade or another install changes the defaults it answers with.
 */
async function programFiles(command: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  for (const folder of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const path = join(folder, command);
    if (!(await access(path, constants.X_OK).then(() => true, () => false))) continue;
    const real = await realpath(path).catch(() => path);
    const packageDir = dirname(dirname(real));
    return [path, real, join(packageDir, 'package.json'), join(packageDir, 'npmrc')];
  }
  return [];
}

/** A file's version: its identity, size and time, and its contents' hash (an edit within one clock tick keeps size and time). */
async function fileVersion(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  if (!info) return `${file}:-`;
  const contents = info.isFile() && info.size <= 1024 * 1024 ? await readFile(file).catch(() => undefined) : undefined;
  const hash = contents ? createHash('sha256').update(contents).digest('hex').slice(0, 16) : '';
  return `${file}:${info.ino}:${info.size}:${info.mtimeMs}:${hash}`;
}

/**
 * What the answer depends on: the variables npm and yarn read, the program PATH finds for `command`, and each configuration
 * file's version.
 */
async function fingerprintOf(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const variables = Object.entries(env)
    .filter(([name]) => /^(npm_config_|yarn_)/i.test(name) || name === 'PATH' || name === 'HOME')
    .sort(([a], [b]) => a.localeCompare(b));
  const files = await Promise.all([...configFiles(cwd, env), ...(await programFiles(command, env))].map(fileVersion));
  return createHash('sha256').update(JSON.stringify([variables, files])).digest('hex');
}

/**
 * The trimmed answer of `command ...args` (e.g. `npm config get registry`); '' when the package manager is missing or fails.
 * Kept (in this process and in cadre's data folder for the next ones) until the configuration it reads changes.
 */
export async function packageManagerSetting(command: 'npm' | 'yarn', args: readonly string[], query: PackageConfigQuery = {}): Promise<string> {
  return (await packageManagerAnswer(command, args, query)).value;
}

/** As packageManagerSetting, with the reason when there is no answer (for a person: what to do differs). */
export async function packageManagerAnswer(command: 'npm' | 'yarn', args: readonly string[], query: PackageConfigQuery = {}): Promise<PackageManagerAnswer> {
  const env = query.env ?? process.env;
  const cwd = resolve(query.cwd ?? process.cwd());
  const key = JSON.stringify([command, args, cwd]);
  const fingerprint = await fingerprintOf(command, cwd, env);
  const cached = answers.get(key);
  if (cached?.fingerprint === fingerprint) return cached.value;
  const store = packageConfigStorePath(env);
  const value = (async (): Promise<PackageManagerAnswer> => {
    const stored = await storedPackageAnswer(store, key, fingerprint);
    if (stored) return stored;
    const { answer, lasting } = await ask(command, args, cwd, env);
    if (lasting) await storePackageAnswer(store, key, fingerprint, answer);
    return answer;
  })();
  answers.set(key, { fingerprint, value });
  return value;
}

const askTimeoutMs = 15_000;

/** The answer, and whether it holds for as long as the configuration does (not a timeout or a crash, which a next try may not repeat). */
function ask(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ answer: PackageManagerAnswer; lasting: boolean }> {
  return new Promise((done) => {
    execFile(command, [...args], { cwd, env, timeout: askTimeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (error === null) done({ answer: { value: stdout.trim() }, lasting: true });
      else done({ answer: { value: '', failure: failureOf(command, error, String(stderr)) }, lasting: error.code === 'ENOENT' || /option is protected/.test(String(stderr)) });
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
