// checkPath: confine a file path to the workspace by its real path (.., symlinks, absolute paths, NUL bytes).
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { allow, deny, type Decision } from './decision.js';

export interface PathPolicyOptions {
  /** The folder every path must stay in, e.g. /workspace. */
  workspace: string;
  /**
   * 'write' (the default) also refuses git's internals (.git/hooks, .git/config) and package-manager
   * config files (.npmrc, .yarnrc, .yarnrc.yml), which could make git or npm run a program.
   */
  access?: 'read' | 'write';
}

const packageManagerConfigs = new Set(['.npmrc', '.yarnrc', '.yarnrc.yml']);

/** Decides whether a path (relative to the workspace, or absolute) may be used. */
export function checkPath(candidate: string, options: PathPolicyOptions): Decision {
  if (candidate.includes('\u0000')) return deny('policy.path.nul-byte', 'The path contains a NUL byte.');
  if (candidate.trim() === '') return deny('policy.path.empty', 'The path is empty.');
  let workspace: string;
  try {
    workspace = realpathSync(options.workspace);
  } catch (error) {
    return deny('policy.path.no-workspace', `The workspace ${options.workspace} does not exist (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  const lexical = path.resolve(options.workspace, candidate);
  if (!isInside(lexical, path.resolve(options.workspace)) && !isInside(lexical, workspace)) {
    return deny('policy.path.outside-workspace', `${candidate} is outside the workspace ${options.workspace}.`, { path: lexical });
  }
  const real = realTarget(lexical);
  if (real.kind === 'dangling') {
    return deny('policy.path.dangling-symlink', `${candidate} goes through a symbolic link to a missing target (${real.link}); it could point anywhere.`, { path: lexical });
  }
  if (!isInside(real.path, workspace)) {
    return deny('policy.path.symlink-escape', `${candidate} resolves to ${real.path}, outside the workspace, through a symbolic link.`, { path: real.path });
  }
  const inner = path.relative(workspace, real.path).split(path.sep);
  if ((options.access ?? 'write') === 'write') {
    if (inner.includes('.git')) {
      return deny('policy.path.git-internals', `${candidate} is inside .git: hooks and config there make git run programs; use git commands instead.`, { path: real.path });
    }
    if (packageManagerConfigs.has(inner[inner.length - 1] ?? '')) {
      return deny('policy.path.package-manager-config', `${candidate} configures npm or yarn (it can set the script shell); it is not written by the agent.`, { path: real.path });
    }
  }
  return allow('policy.path.allowed', `${candidate} is inside the workspace.`, { path: real.path });
}

function isInside(candidate: string, root: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

type RealTarget = { kind: 'path'; path: string } | { kind: 'dangling'; link: string };

/** The real path of the deepest existing ancestor, with the not-yet-existing rest appended. */
function realTarget(absolute: string): RealTarget {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    const found = lstatCode(current);
    if (found === 'exists') {
      try {
        return { kind: 'path', path: path.join(realpathSync(current), ...missing.reverse()) };
      } catch {
        return { kind: 'dangling', link: current };
      }
    }
    if (found === 'loop') return { kind: 'dangling', link: current };
    const parent = path.dirname(current);
    if (parent === current) return { kind: 'path', path: absolute };
    missing.push(path.basename(current));
    current = parent;
  }
}

function lstatCode(candidate: string): 'exists' | 'missing' | 'loop' {
  try {
    lstatSync(candidate);
    return 'exists';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    return 'loop';
  }
}
