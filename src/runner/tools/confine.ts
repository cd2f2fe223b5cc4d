// Confines a path the model names to the workspace by its real path, through the shared path policy.
import path from 'node:path';
import { checkPath } from '../../policy/index.js';
import { PolicyDenial } from '../../agents/tools/tool.js';

/** The name the model uses for the workspace root, whatever its real location (tests use a temp folder). */
export const workspaceName = '/workspace';

export interface ConfinedPath {
  /** The real absolute path. */
  real: string;
  /** The path relative to the workspace, for messages ('.' for the root). */
  relative: string;
}

/** Resolves `candidate` (relative, or absolute under /workspace) or throws a PolicyDenial. */
export function confine(workspace: string, candidate: string, access: 'read' | 'write'): ConfinedPath {
  const rebased = candidate === workspaceName || candidate.startsWith(`${workspaceName}/`)
    ? path.join(workspace, candidate.slice(workspaceName.length))
    : candidate;
  const decision = checkPath(rebased, { workspace, access });
  if (decision.decision === 'deny') throw new PolicyDenial(candidate, decision);
  const real = decision.path ?? path.resolve(workspace, rebased);
  return { real, relative: path.relative(workspace, real) || '.' };
}
