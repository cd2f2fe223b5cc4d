// git's restrictions: no config overrides, no exec-bearing options, no remote helpers (ext::), no hook tricks, no writes out of bounds.
import { deny, type Decision } from './decision.js';
import { checkGitConfig } from './git-config.js';
import posix from 'node:path/posix';
import { checkGitWrites } from './git-write.js';
import { isLongSpelling, splitOnce } from './options.js';
import { writeTargetRefusal } from './write-target.js';

const globalFlags = new Set([
  '-p', '--paginate', '-P', '--no-pager', '--no-replace-objects', '--bare', '--literal-pathspecs', '--glob-pathspecs',
  '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks', '--version', '-v', '--help', '-h', '--html-path',
  '--man-path', '--info-path', '--no-advice',
]);
const globalValued = new Set(['--namespace', '--list-cmds', '--attr-source']);
/** Options that point git at another repository, whose own config (core.fsmonitor, core.pager) would then apply. */
const repositoryOptions = new Set(['--git-dir', '--work-tree']);

/** Subcommand options that name a program to run: `--upload-pack=sh`, `rebase --exec`, `grep -O`, …. */
const execOptions: Record<string, { long: string[]; short: string[] }> = {
  clone: { long: ['--upload-pack', '--template', '--config'], short: ['u', 'c'] },
  fetch: { long: ['--upload-pack'], short: [] },
  pull: { long: ['--upload-pack'], short: [] },
  'ls-remote': { long: ['--upload-pack'], short: ['u'] },
  push: { long: ['--receive-pack', '--exec'], short: [] },
  'send-pack': { long: ['--receive-pack', '--exec'], short: [] },
  'fetch-pack': { long: ['--upload-pack', '--exec'], short: [] },
  archive: { long: ['--exec'], short: [] },
  rebase: { long: ['--exec'], short: ['x'] },
  difftool: { long: ['--extcmd', '--tool'], short: ['x', 't'] },
  mergetool: { long: ['--tool'], short: ['t'] },
  grep: { long: ['--open-files-in-pager'], short: ['O'] },
  init: { long: ['--template'], short: [] },
  'send-email': { long: ['--sendmail-cmd', '--to-cmd', '--cc-cmd', '--header-cmd', '--smtp-server'], short: [] },
};

/** Subcommands that run programs or shell strings by design. */
const execSubcommands: Record<string, string> = {
  'filter-branch': 'runs shell filters',
  'filter-repo': 'runs Python callbacks',
  instaweb: 'starts a web server and a browser',
  'web--browse': 'starts a browser',
  hook: 'runs repository hooks directly',
  daemon: 'serves the repository to the network',
  'credential-store': 'handles credentials',
  credential: 'handles credentials',
};

const urlSubcommands = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'remote', 'submodule', 'archive', 'fetch-pack', 'send-pack']);

/** Checks git's arguments (after `git`) for a command run in `workspace`; undefined when they are acceptable. */
export function checkGit(args: readonly string[], workspace = '/workspace'): Decision | undefined {
  let index = 0;
  let directory = '.';
  while (index < args.length && (args[index] ?? '').startsWith('-')) {
    const arg = args[index] ?? '';
    const [name, inline] = splitOnce(arg, '=');
    if (name === '-c' || name.startsWith('-c') || name === '--config-env') {
      return deny('policy.git.config-override', `git ${arg} overrides configuration for one run (pager, ssh command, hooks…); set safe options explicitly instead.`, { program: 'git' });
    }
    if (arg === '-C' || (arg.startsWith('-C') && arg.length > 2)) {
      // -C is cumulative (git -C a -C b works in a/b); each step must stay in the workspace and out of .git.
      const value = arg === '-C' ? args[index + 1] : arg.slice(2);
      if (value === undefined) return deny('policy.git.repository-override', 'git -C needs a directory.', { program: 'git' });
      directory = value === '' ? directory : posix.join(directory, value.startsWith('/') ? posix.relative(workspace, value) : value);
      const refused = writeTargetRefusal(directory, workspace);
      if (refused) return deny('policy.git.repository-override', `git -C ${value}: ${refused.reason}; run git on the workspace's own repositories.`, { program: 'git' });
      index += arg === '-C' ? 2 : 1;
      continue;
    }
    if (repositoryOptions.has(name)) {
      return deny('policy.git.repository-override', `git ${arg} points git at another repository, whose config could run programs (a planted bare repository); run git in the workspace.`, { program: 'git' });
    }
    if (name === '--exec-path' && inline !== undefined) return deny('policy.git.exec-option', '--exec-path=… makes git run programs from another directory.', { program: 'git' });
    if (name === '--exec-path' || globalFlags.has(name)) index += 1;
    else if (globalValued.has(name)) index += inline === undefined ? 2 : 1;
    else return deny('policy.git.unknown-option', `git ${arg}: an option before the subcommand that the policy does not know.`, { program: 'git' });
  }
  const subcommand = args[index];
  if (subcommand === undefined) return undefined;
  const rest = args.slice(index + 1);
  const purpose = execSubcommands[subcommand];
  if (purpose) return deny('policy.git.exec-subcommand', `git ${subcommand} ${purpose}; it is not allowed for the agent.`, { program: 'git' });
  return checkSubcommand(subcommand, rest) ?? checkGitWrites(subcommand, rest, posix.join(workspace, directory));
}

function checkSubcommand(subcommand: string, rest: readonly string[]): Decision | undefined {
  if (subcommand === 'config') return checkGitConfig(rest);
  if (subcommand === 'bisect' && rest[0] === 'run') return deny('policy.git.exec-option', 'git bisect run executes a command for every step.', { program: 'git' });
  if (subcommand === 'submodule' && rest.includes('foreach')) return deny('policy.git.exec-option', 'git submodule foreach runs a shell command in every submodule.', { program: 'git' });
  const options = execOptions[subcommand];
  for (const arg of options ? rest : []) {
    if (arg === '--') break;
    const long = options?.long.find((full) => isLongSpelling(arg, full));
    const short = /^-[a-zA-Z]/.test(arg) && !arg.startsWith('--') ? options?.short.find((letter) => arg.slice(1).includes(letter)) : undefined;
    if (long !== undefined || short !== undefined) {
      return deny('policy.git.exec-option', `git ${subcommand} ${arg}: the option names a program or template for git to run.`, { program: 'git' });
    }
  }
  if (urlSubcommands.has(subcommand)) {
    const helper = rest.find((arg) => /(^|=)[A-Za-z][A-Za-z0-9+.-]*::/.test(arg));
    if (helper !== undefined) {
      return deny('policy.git.remote-helper', `${helper}: transport::address remotes (ext::, fd::, …) run remote helpers; use an https or ssh URL.`, { program: 'git' });
    }
  }
  return undefined;
}
