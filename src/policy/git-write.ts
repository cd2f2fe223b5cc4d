// git's own file writes: options and operands that name where git writes (--output=, -o, clone's folder…), judged like redirections.
import { deny, type Decision } from './decision.js';
import { splitOnce } from './options.js';
import { writeTargetRefusal } from './write-target.js';

/** The diff options every diff-producing command accepts, --output among them. */
const diffOutput = { long: ['--output'], short: [] as string[] };
/** Options naming a file or folder the subcommand writes. */
const writeOptions: Record<string, { long: string[]; short: string[] }> = {
  diff: diffOutput, log: diffOutput, show: diffOutput, whatchanged: diffOutput, 'diff-tree': diffOutput, 'diff-index': diffOutput,
  'diff-files': diffOutput, 'range-diff': diffOutput, blame: diffOutput, stash: diffOutput, 'cherry-pick': diffOutput, shortlog: diffOutput,
  'format-patch': { long: ['--output', '--output-directory'], short: ['o'] },
  archive: { long: ['--output'], short: ['o'] },
  bugreport: { long: ['--output-directory'], short: ['o'] },
  diagnose: { long: ['--output-directory'], short: ['o'] },
  'fast-export': { long: ['--export-marks'], short: [] },
  'fast-import': { long: ['--export-marks'], short: [] },
  'index-pack': { long: [], short: ['o'] },
  mailsplit: { long: [], short: ['o'] },
  'checkout-index': { long: ['--prefix'], short: [] },
  clone: { long: ['--separate-git-dir'], short: [] },
  init: { long: ['--separate-git-dir'], short: [] },
};
/** Long options that begin like a write option but write nothing (--output-indicator-new=+). */
const lookalikes = ['--output-indicator-'];
/** Subcommands whose operands are folders or files they create; `skip` operands (a repository URL) come first. */
const writeOperands: Record<string, { after?: string; skip: number }> = {
  clone: { skip: 1 }, init: { skip: 0 }, worktree: { after: 'add', skip: 0 }, bundle: { after: 'create', skip: 0 }, submodule: { after: 'add', skip: 1 },
};

function refuse(subcommand: string, option: string, target: string, workspace: string): Decision | undefined {
  const refused = writeTargetRefusal(target, workspace);
  if (!refused) return undefined;
  return deny('policy.git.output-file', `git ${subcommand} ${option}: git would write ${refused.reason}.`, { program: 'git' });
}

/** The option's long name when `arg` spells one of `names` (git accepts unambiguous prefixes), else undefined. */
function longWriteOption(arg: string, names: readonly string[]): string | undefined {
  const [name] = splitOnce(arg, '=');
  if (name.length < 5 || !name.startsWith('--') || lookalikes.some((prefix) => name.startsWith(prefix))) return undefined;
  return names.find((full) => full === name || full.startsWith(name));
}

/** Checks where git `subcommand` with `rest` would write; undefined when every named target stays in bounds. */
export function checkGitWrites(subcommand: string, rest: readonly string[], workspace: string): Decision | undefined {
  const options = writeOptions[subcommand];
  for (let index = 0; options && index < rest.length; index += 1) {
    const arg = rest[index] ?? '';
    if (arg === '--') break;
    const long = longWriteOption(arg, options.long);
    if (long !== undefined) {
      const target = splitOnce(arg, '=')[1] ?? rest[index + 1];
      const denied = target === undefined ? undefined : refuse(subcommand, long, target, workspace);
      if (denied) return denied;
      continue;
    }
    const cluster = /^-([a-zA-Z]+)(.*)$/s.exec(arg);
    const letter = cluster ? options.short.find((candidate) => cluster[1]?.includes(candidate)) : undefined;
    if (cluster && letter) {
      const after = arg.slice(arg.indexOf(letter, 1) + 1);
      const target = after !== '' ? after : rest[index + 1];
      const denied = target === undefined ? undefined : refuse(subcommand, `-${letter}`, target, workspace);
      if (denied) return denied;
    }
  }
  const operands = writeOperands[subcommand];
  if (!operands) return undefined;
  const start = operands.after === undefined ? 0 : rest.indexOf(operands.after) + 1;
  if (operands.after !== undefined && start === 0) return undefined;
  // Values of options (clone -b main) count as operands here: they resolve inside the workspace, so they pass.
  const words = rest.slice(start).filter((arg) => !arg.startsWith('-'));
  for (const target of words.slice(operands.skip)) {
    const denied = refuse(subcommand, operands.after ?? 'into', target, workspace);
    if (denied) return denied;
  }
  return undefined;
}
