// `cadre policy check [--json] "<command>"` and `--path <p>`: print the decision and the rule behind it.
import { exitCodes } from '../errors.js';
import { checkCommand } from './command-policy.js';
import type { Decision } from './decision.js';
import { checkPath } from './path-policy.js';

export interface PolicyCheckInput {
  command?: string;
  path?: string;
  json: boolean;
  /** The workspace paths are confined to; defaults to /workspace. */
  workspace?: string;
}

export interface PolicyCheckResult {
  exitCode: number;
  /** What to print: JSON when `json` was asked for, otherwise lines for people. */
  text: string;
  /** The same result as data. */
  json: { input: { command?: string; path?: string }; decision?: Decision; error?: { code: string; message: string } };
}

/** Exit status of `cadre policy check` when the policy denies: distinct from usage and failure codes. */
export const policyDeniedExitCode = exitCodes.policyDenied;

export async function policyCheck(input: PolicyCheckInput): Promise<PolicyCheckResult> {
  if ((input.command === undefined) === (input.path === undefined)) {
    const message = 'Give either a command or --path <p>, not both and not neither.';
    const json = { input: { command: input.command, path: input.path }, error: { code: 'policy.usage', message } };
    return { exitCode: exitCodes.usage, text: input.json ? JSON.stringify(json) : `${message}\nUsage: cadre policy check [--json] "<command>" | --path <p>`, json };
  }
  const decision = input.command !== undefined
    ? await checkCommand(input.command, { workspace: input.workspace })
    : checkPath(input.path ?? '', { workspace: input.workspace ?? '/workspace' });
  const json = { input: input.command !== undefined ? { command: input.command } : { path: input.path }, decision };
  const exitCode = decision.decision === 'allow' ? exitCodes.ok : policyDeniedExitCode;
  return { exitCode, text: input.json ? JSON.stringify(json) : render(decision), json };
}

function render(decision: Decision): string {
  const verdict = decision.decision === 'allow' ? 'allowed' : 'denied';
  const about = decision.program ? ` (${decision.program})` : decision.path ? ` (${decision.path})` : '';
  return `${verdict}${about}: ${decision.rule}\n  ${decision.reason}`;
}
