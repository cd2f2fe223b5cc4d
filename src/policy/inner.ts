// Commands that other programs run for you: find -exec, npm exec, yarn dlx, pnpm exec, docker run/exec, strace, busybox, ….
import { parseOptions, type OptionSpec } from './options.js';
import { programName } from './programs.js';

export type InnerCommand = { kind: 'command'; argv: string[] } | { kind: 'string'; text: string };

/** Programs that run their arguments as a command after options of their own; scanned for a known program name. */
const opaqueRunners = new Set([
  'strace', 'ltrace', 'valgrind', 'busybox', 'toybox', 'nsenter', 'unshare', 'firejail', 'proot', 'fakeroot',
  'systemd-run', 'prlimit', 'catchsegv', 'ssh', 'parallel', 'run-one', 'sg', 'newgrp', 'script', 'gdb', 'caffeinate',
  'npx', 'pnpx', 'bunx', 'dbus-launch', 'setpriv', 'capsh', 'bwrap', 'daemonize', 'start-stop-daemon',
]);

const dockerValueOptions = new Set([
  '-a', '--attach', '--add-host', '--annotation', '--blkio-weight', '--cap-add', '--cap-drop', '--cgroup-parent', '--cgroupns', '--cidfile',
  '--cpu-period', '--cpu-quota', '--cpu-shares', '-c', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--device', '--detach-keys', '--dns',
  '--dns-option', '--dns-search', '--domainname', '-e', '--env', '--entrypoint', '--env-file', '--expose', '--gpus', '--group-add',
  '--health-cmd', '--health-interval', '--health-retries', '--health-timeout', '--health-start-period', '-h', '--hostname', '--ip', '--ip6',
  '--ipc', '--isolation', '--label', '-l', '--label-file', '--link', '--log-driver', '--log-opt', '--mac-address', '-m', '--memory',
  '--memory-reservation', '--memory-swap', '--mount', '--name', '--network', '--net', '--network-alias', '--pid', '--pids-limit',
  '--platform', '-p', '--publish', '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout',
  '--storage-opt', '--sysctl', '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts', '-v', '--volume', '--volumes-from', '-w', '--workdir',
]);

/** The commands a program would run on our behalf; empty when it runs none that the policy can see. */
export function innerCommands(name: string, args: readonly string[]): InnerCommand[] {
  if (name === 'find') return findExec(args);
  if (name === 'npm') return npmExec(args);
  if (name === 'yarn') return yarnExec(args);
  if (name === 'pnpm') return pnpmExec(args);
  if (name === 'docker') return dockerCommand(args);
  if (opaqueRunners.has(name)) return args.map((_arg, index) => ({ kind: 'command' as const, argv: args.slice(index) }));
  return [];
}

function findExec(args: readonly string[]): InnerCommand[] {
  const found: InnerCommand[] = [];
  args.forEach((arg, index) => {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(arg)) return;
    const end = args.findIndex((word, at) => at > index && (word === ';' || word === '+'));
    found.push({ kind: 'command', argv: args.slice(index + 1, end === -1 ? undefined : end) });
  });
  return found;
}

const npmExecSpec: OptionSpec = {
  short: { y: 'flag', q: 'flag', p: 'value', c: 'value', w: 'value' },
  long: { '--yes': 'flag', '--no': 'flag', '--package': 'value', '--call': 'value', '--workspace': 'value', '--workspaces': 'flag', '--include-workspace-root': 'flag' },
};

/** npm exec / npm x / npm explore: the command after npm's own options (and -c strings). */
function npmExec(args: readonly string[]): InnerCommand[] {
  const subcommandAt = args.findIndex((arg) => !arg.startsWith('-'));
  const subcommand = args[subcommandAt];
  if (subcommand === 'explore') return [{ kind: 'string', text: args.slice(subcommandAt + 1).join(' ') }];
  if (subcommand !== 'exec' && subcommand !== 'x') return [];
  const rest = args.slice(subcommandAt + 1);
  const parsed = parseOptions(rest, npmExecSpec);
  const call = parsed.seen.find((option) => option.name === '-c' || option.name === '--call');
  if (call) return [{ kind: 'string', text: call.value ?? '' }];
  const next = parsed.unknown === undefined ? parsed.next : rest.indexOf(parsed.unknown) + 1;
  return rest.length > next ? [{ kind: 'command', argv: rest.slice(next) }] : [];
}

/** yarn's options that take a value before the subcommand (classic and berry). */
const yarnValued = new Set([
  '--cwd', '--cache-folder', '--modules-folder', '--global-folder', '--link-folder', '--mutex', '--network-concurrency',
  '--network-timeout', '--preferred-cache-folder', '--registry', '--proxy', '--https-proxy', '--otp', '--scripts-prepend-node-path',
]);
const yarnDlxSpec: OptionSpec = { short: { p: 'value', q: 'flag' }, long: { '--package': 'value', '--quiet': 'flag' } };
const yarnForeachValued = new Set(['--include', '--exclude', '--from', '-j', '--jobs']);

/**
 * The commands yarn runs for you, classic and berry alike: `exec` (whose command berry runs as shell code), `node`,
 * `run node`, `dlx`, and any of these through `workspace <name>` or `workspaces foreach|run`, with yarn's own options skipped.
 */
/** Where yarn's subcommand is, past its own options and their values. */
export function yarnSubcommandAt(args: readonly string[]): number {
  let at = 0;
  while (at < args.length && (args[at] ?? '').startsWith('-')) at += yarnValued.has(args[at] ?? '') ? 2 : 1;
  return at;
}

function yarnExec(args: readonly string[]): InnerCommand[] {
  const at = yarnSubcommandAt(args);
  const subcommand = args[at];
  const rest = args.slice(at + 1);
  const afterDashes = (words: readonly string[]): string[] => (words[0] === '--' ? words.slice(1) : [...words]);
  switch (subcommand) {
    case 'exec': {
      const command = afterDashes(rest);
      if (command.length === 0) return [];
      // Berry hands exec's words to its own shell: a word holding shell syntax is a script, not a program name.
      return /[\s;&|<>()$`'"\\*?{}~#]/.test(command[0] ?? '') ? [{ kind: 'string', text: command.join(' ') }] : [{ kind: 'command', argv: command }];
    }
    case 'node':
      return [{ kind: 'command', argv: ['node', ...rest] }];
    case 'run':
      return rest[0] === 'node' ? [{ kind: 'command', argv: ['node', ...rest.slice(1)] }] : [];
    case 'dlx': {
      const parsed = parseOptions(rest, yarnDlxSpec);
      const command = parsed.unknown === undefined ? rest.slice(parsed.next) : [];
      return command.length > 0 ? [{ kind: 'command', argv: afterDashes(command) }] : [{ kind: 'string', text: rest.join(' ') }];
    }
    case 'workspace':
      return rest.length > 1 ? [{ kind: 'command', argv: ['yarn', ...rest.slice(1)] }] : [];
    case 'workspaces': {
      // Classic yarn runs the named yarn command (or script) in every workspace.
      if (rest[0] === 'run') return rest.length > 1 ? [{ kind: 'command', argv: ['yarn', ...rest.slice(1)] }] : [];
      if (rest[0] !== 'foreach') return [];
      let index = 1;
      while (index < rest.length && (rest[index] ?? '').startsWith('-')) index += yarnForeachValued.has(rest[index] ?? '') ? 2 : 1;
      return index < rest.length ? [{ kind: 'command', argv: ['yarn', ...rest.slice(index)] }] : [];
    }
    default:
      return [];
  }
}

/** pnpm's options that take a value before the subcommand. */
const pnpmValued = new Set(['-C', '--dir', '--filter', '-F', '--filter-prod', '--workspace-concurrency', '--reporter', '--loglevel', '--test-pattern', '--changed-files-ignore-pattern']);

/** Where pnpm's subcommand is, past its own options and their values. */
export function pnpmSubcommandAt(args: readonly string[]): number {
  let at = 0;
  while (at < args.length && (args[at] ?? '').startsWith('-')) at += pnpmValued.has(args[at] ?? '') ? 2 : 1;
  return at;
}

/** pnpm exec CMD… (or shell code with -c / --shell-mode), and pnpm dlx's command for the record. */
function pnpmExec(args: readonly string[]): InnerCommand[] {
  const at = pnpmSubcommandAt(args);
  const subcommand = args[at];
  const shellMode = args.slice(0, at).some((arg) => arg === '-c' || arg === '--shell-mode');
  if (subcommand !== 'exec' && subcommand !== 'dlx') return [];
  let rest = args.slice(at + 1);
  while (rest.length && (rest[0] ?? '').startsWith('-') && rest[0] !== '--') {
    if (rest[0] === '-c' || rest[0] === '--shell-mode') return [{ kind: 'string', text: rest.slice(1).join(' ') }];
    rest = rest.slice(rest[0] === '--package' ? 2 : 1);
  }
  if (rest[0] === '--') rest = rest.slice(1);
  if (rest.length === 0) return [];
  return shellMode ? [{ kind: 'string', text: rest.join(' ') }] : [{ kind: 'command', argv: rest }];
}

/** docker run|create IMAGE CMD…, docker exec CONTAINER CMD…, docker compose run|exec SERVICE CMD…. */
function dockerCommand(args: readonly string[]): InnerCommand[] {
  let rest = [...args];
  if (rest[0] === 'container' || rest[0] === 'compose') rest = rest.slice(1);
  const subcommand = rest[0];
  if (!['run', 'create', 'exec'].includes(subcommand ?? '')) return [];
  rest = rest.slice(1);
  let entrypoint: string | undefined;
  let index = 0;
  while (index < rest.length && (rest[index] ?? '').startsWith('-')) {
    const arg = rest[index] ?? '';
    const [optionName] = arg.split('=');
    if (optionName === '--entrypoint') entrypoint = arg.includes('=') ? arg.slice('--entrypoint='.length) : rest[index + 1];
    const takesValue = !arg.includes('=') && (dockerValueOptions.has(arg) || (/^-[a-zA-Z]+$/.test(arg) && dockerValueOptions.has(`-${arg.slice(-1)}`)));
    index += takesValue ? 2 : 1;
  }
  const command = rest.slice(index + 1);
  const argv = entrypoint === undefined ? command : [entrypoint, ...command];
  return argv.length > 0 && programName(argv[0] ?? '') !== '' ? [{ kind: 'command', argv }] : [];
}
