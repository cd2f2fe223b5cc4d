// npm, yarn and pnpm: nothing may change the shell that runs package scripts, load another config file, or fetch and run a package.
import { deny, type Decision } from './decision.js';
import { pnpmSubcommandAt, yarnSubcommandAt } from './inner.js';
import { isLongSpelling, splitOnce } from './options.js';

const shellSettings = ['script-shell', 'shell'];
/** Settings naming a program npm or yarn will start: an editor, git, a browser, node's options, yarn's own path. */
const programSettings = ['editor', 'git', 'browser', 'viewer', 'node-options', 'yarn-path', 'yarnpath'];
const configFileSettings = ['userconfig', 'globalconfig'];
const configFileOptions = ['--userconfig', '--globalconfig', '--use-yarnrc', '--yarnrc'];

/** npm exec's options that fetch a package which is not a dependency (without them it runs the project's own bins). */
const fetchingExecOptions = ['--yes', '--package'];

/**
 * A package that is not a dependency, fetched from the registry and run on the spot: yarn dlx and yarn create,
 * npm exec --yes / --package, npm init and npm create with an initializer (npx's twins; npx is not allowed).
 */
function downloadAndRun(program: 'npm' | 'yarn' | 'pnpm', args: readonly string[]): string | undefined {
  const at = program === 'yarn' ? yarnSubcommandAt(args) : program === 'pnpm' ? pnpmSubcommandAt(args) : args.findIndex((arg) => !arg.startsWith('-'));
  const subcommand = args[at];
  const rest = args.slice(at + 1);
  const firstOperand = rest.find((arg) => !arg.startsWith('-'));
  if (program === 'pnpm') return subcommand === 'dlx' || (subcommand === 'create' && firstOperand !== undefined) ? `pnpm ${subcommand}` : undefined;
  if (program === 'yarn') return subcommand === 'dlx' || (subcommand === 'create' && firstOperand !== undefined) ? `yarn ${subcommand}` : undefined;
  if ((subcommand === 'init' || subcommand === 'create' || subcommand === 'innit') && firstOperand !== undefined) return `npm ${subcommand} ${firstOperand}`;
  if (subcommand !== 'exec' && subcommand !== 'x') return undefined;
  const end = rest.indexOf('--');
  const own = end === -1 ? rest : rest.slice(0, end);
  const fetching = own.find((arg) => arg === '-y' || /^-p/.test(arg) || fetchingExecOptions.some((full) => isLongSpelling(arg, full, 4)));
  return fetching === undefined ? undefined : `npm ${subcommand} ${fetching}`;
}

/** pnpm's `--config.<key>=value` sets any setting on the command line: the key, normalised. */
function pnpmConfigKey(arg: string): string | undefined {
  const match = /^--config\.([^=]+)/.exec(arg);
  return match ? match[1]!.toLowerCase().replace(/_/g, '-') : undefined;
}

/** Checks npm, yarn or pnpm arguments; undefined when acceptable. */
export function checkPackageManager(program: 'npm' | 'yarn' | 'pnpm', args: readonly string[]): Decision | undefined {
  const fetched = downloadAndRun(program, args);
  if (fetched) {
    return deny('policy.npm.download-exec', `${fetched} fetches a package that is not a dependency and runs it; add it to the project with ${program === 'npm' ? 'npm install' : `${program} add`} and run it from there.`, { program });
  }
  for (const arg of args) {
    if (arg === '--') break;
    const key = pnpmConfigKey(arg);
    if (key !== undefined && (shellSettings.includes(key) || programSettings.includes(key) || configFileSettings.includes(key) || key === 'scriptshell')) {
      return deny('policy.npm.exec-setting', `${program} ${arg} changes a setting that names a program or a configuration file for ${program} to use.`, { program });
    }
    if (isLongSpelling(arg, '--script-shell', 5) || isLongSpelling(arg, '--shell', 4)) {
      return deny('policy.npm.script-shell', `${program} ${arg} changes the shell that runs package scripts.`, { program });
    }
    const setting = programSettings.find((name) => isLongSpelling(arg, `--${name}`, name.length + 2));
    if (setting) return deny('policy.npm.exec-setting', `${program} ${arg} names a program for ${program} to start.`, { program });
    const option = configFileOptions.find((full) => isLongSpelling(arg, full, 6));
    if (option) return deny('policy.npm.config-file', `${program} ${arg} loads another configuration file, which can change the script shell.`, { program });
  }
  const configAt = args.findIndex((arg) => arg === 'config' || arg === 'c' || arg === 'set');
  if (configAt === -1) return undefined;
  const tail = args.slice(args[configAt] === 'set' ? configAt + 1 : configAt + 2);
  const writes = args[configAt] === 'set' || args[configAt + 1] === 'set';
  const keys = tail.filter((arg) => !arg.startsWith('-')).map((arg) => splitOnce(arg, '=')[0].toLowerCase());
  const normalized = keys.map((key) => key.replace(/_/g, '-'));
  if (writes && normalized.some((key) => shellSettings.includes(key) || key === 'scriptshell')) {
    return deny('policy.npm.script-shell', `${program} config set ${keys.join(' ')} changes the shell that runs package scripts.`, { program });
  }
  if (writes && normalized.some((key) => configFileSettings.includes(key))) {
    return deny('policy.npm.config-file', `${program} config set ${keys.join(' ')} loads another configuration file, which can change the script shell.`, { program });
  }
  if (writes && normalized.some((key) => programSettings.includes(key))) {
    return deny('policy.npm.exec-setting', `${program} config set ${keys.join(' ')} names a program for ${program} to start.`, { program });
  }
  return undefined;
}
