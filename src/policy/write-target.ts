// Where a command may write a file it names (a redirection, git --output=…): inside the workspace, not git's internals, not npm's config.
import path from 'node:path/posix';

export type WriteTargetRefusal = 'outside-workspace' | 'git-internals' | 'package-manager-config';

const packageManagerConfigs = new Set(['.npmrc', '.yarnrc', '.yarnrc.yml']);

/**
 * Judges a file a command would write, by its words alone (the policy reads no file): it must resolve inside
 * `workspace`, and not into .git (a hook or .git/config there makes git run a program) nor onto npm's or yarn's
 * configuration (which can set the script shell). Undefined when the target is acceptable.
 */
export function writeTargetRefusal(target: string, workspace: string): { refusal: WriteTargetRefusal; reason: string } | undefined {
  const root = workspace.replace(/\/+$/, '') || '/';
  const absolute = path.resolve(root, target);
  if (absolute !== root && !absolute.startsWith(`${root}/`)) return { refusal: 'outside-workspace', reason: `${target} is outside the workspace ${workspace}` };
  const parts = path.relative(root, absolute).split('/');
  // `.git` named directly, or reached through `..` from inside it: both resolve to a part named .git.
  if (parts.includes('.git') || target.split('/').includes('.git')) return { refusal: 'git-internals', reason: `${target} is inside .git, where hooks and config make git run programs` };
  if (packageManagerConfigs.has(parts.at(-1) ?? '')) return { refusal: 'package-manager-config', reason: `${target} configures npm or yarn (it can set the script shell)` };
  return undefined;
}
