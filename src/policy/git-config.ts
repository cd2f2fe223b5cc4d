// `git config`: reading is fine; writing is limited to keys that cannot make git run a program.
import { deny, type Decision } from './decision.js';
import { splitOnce } from './options.js';

/** Keys (lower case; * is one dotted segment) that only describe data, never a command to run. */
const safeKeys = [
  'user.name', 'user.email', 'user.signingkey', 'init.defaultbranch', 'core.autocrlf', 'core.eol', 'core.filemode',
  'core.ignorecase', 'core.quotepath', 'core.safecrlf', 'core.whitespace', 'core.longpaths', 'core.symlinks',
  'core.precomposeunicode', 'pull.rebase', 'pull.ff', 'push.default', 'push.autosetupremote', 'push.followtags',
  'fetch.prune', 'fetch.prunetags', 'merge.ff', 'merge.conflictstyle', 'rebase.autostash', 'rebase.autosquash',
  'commit.gpgsign', 'tag.gpgsign', 'diff.renames', 'diff.algorithm', 'diff.mnemonicprefix', 'status.showuntrackedfiles',
  'log.date', 'log.decorate', 'color.*', 'advice.*', 'branch.*.remote', 'branch.*.merge',
  'branch.*.rebase', 'branch.autosetupmerge', 'branch.autosetuprebase', 'remote.*.url', 'remote.*.pushurl',
  'remote.*.fetch', 'remote.*.push', 'remote.*.tagopt', 'remote.*.prune', 'safe.directory', 'gc.auto', 'help.autocorrect',
  'http.postbuffer', 'pack.threads', 'credential.usehttppath',
];

const readOptions = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', '--get-color', '--get-colorbool']);
const removeOptions = new Set(['--unset', '--unset-all', '--remove-section']);
const valuedOptions = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment', '--value', '-t']);
const readSubcommands = new Set(['get', 'list']);
const removeSubcommands = new Set(['unset', 'remove-section']);
const writeSubcommands = new Set(['set']);

const safeKeyPatterns = safeKeys.map((key) => new RegExp(`^${key.replace(/\./g, '\\.').replace(/\*/g, '.+')}$`));

function isSafeKey(key: string): boolean {
  return safeKeyPatterns.some((pattern) => pattern.test(key.toLowerCase()));
}

/** Checks `git config …` arguments; undefined when it only reads, removes, or writes a safe key. */
export function checkGitConfig(args: readonly string[]): Decision | undefined {
  const operands: string[] = [];
  let mode: 'read' | 'remove' | 'write' = 'write';
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    const [name, inline] = splitOnce(arg, '=');
    if (arg === '-e' || arg === '--edit' || arg === '--rename-section') {
      return deny('policy.git.config-write', `git config ${arg} can write any key; set keys one at a time.`, { program: 'git' });
    }
    if (readOptions.has(name)) mode = 'read';
    else if (removeOptions.has(name)) mode = 'remove';
    else if (valuedOptions.has(name) && inline === undefined) index += 1;
    else if (!arg.startsWith('-')) operands.push(arg);
  }
  const [first, ...others] = operands;
  if (first === 'edit' || first === 'rename-section') {
    return deny('policy.git.config-write', `git config ${first} can write any key; set keys one at a time.`, { program: 'git' });
  }
  if (first === undefined || mode !== 'write' || readSubcommands.has(first) || removeSubcommands.has(first)) return undefined;
  const [key = '', value] = writeSubcommands.has(first) ? others : operands;
  // `git config KEY` with no value reads the key.
  if (value === undefined && !writeSubcommands.has(first)) return undefined;
  if (!isSafeKey(key)) {
    return deny('policy.git.config-write', `git config ${key}: only keys that cannot make git run a program may be set (not aliases, pagers, hooks, ssh commands, filters…).`, { program: 'git' });
  }
  if (value !== undefined && /(^|=)[A-Za-z][A-Za-z0-9+.-]*::/.test(value)) {
    return deny('policy.git.remote-helper', `${value}: transport::address remotes run remote helpers; use an https or ssh URL.`, { program: 'git' });
  }
  return undefined;
}
