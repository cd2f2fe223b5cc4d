// Redirections: targets must stay in the workspace and out of git's internals; here-documents must not expand anything.
import type { Node } from 'web-tree-sitter';
import { deny, type Decision } from './decision.js';
import { wordDenial } from './word-denial.js';
import { writeTargetRefusal } from './write-target.js';
import { hasBraceExpansion, hasGlob, hasTilde, resolveWord } from './words.js';

const devices = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty']);
const fileOperators = new Set(['>', '>>', '<', '&>', '&>>', '>|', '>&', '<&']);

/** Checks one redirect node; undefined when acceptable. */
export function checkRedirect(node: Node, workspace: string): Decision | undefined {
  if (node.type === 'herestring_redirect') {
    const word = node.namedChildren.find((child) => child !== null);
    if (!word) return unsupported(node);
    const resolved = resolveWord(word);
    return resolved.ok ? undefined : wordDenial(resolved);
  }
  if (node.type === 'heredoc_redirect') return checkHeredoc(node);
  if (node.type !== 'file_redirect') return unsupported(node);
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
  const destination = node.childForFieldName('destination');
  if (!fileOperators.has(operator) || !destination) return unsupported(node);
  const resolved = resolveWord(destination);
  if (!resolved.ok) return wordDenial(resolved);
  const target = resolved.value;
  if ((operator === '>&' || operator === '<&') && /^(\d+|-)$/.test(target)) return undefined;
  if (devices.has(target)) return undefined;
  if (hasGlob(resolved.segments) || hasBraceExpansion(resolved.segments) || hasTilde(resolved.segments)) {
    return deny('policy.redirect.outside-workspace', `Redirection target ${target} would be expanded by the shell; name the file literally.`);
  }
  const refused = writeTargetRefusal(target, workspace);
  if (refused === undefined) return undefined;
  // Reading a file is judged by the path policy of the tools; writing one here, like any named output, is not.
  if (operator === '<' || operator === '<&') return refused.refusal === 'outside-workspace' ? deny('policy.redirect.outside-workspace', `Redirection from ${target} leaves the workspace ${workspace}.`) : undefined;
  if (refused.refusal === 'outside-workspace') return deny('policy.redirect.outside-workspace', `Redirection to ${target} leaves the workspace ${workspace}.`);
  return deny(`policy.redirect.${refused.refusal}`, `Redirection to ${refused.reason}; it is not written by the agent.`);
}

function checkHeredoc(node: Node): Decision | undefined {
  const start = node.children.find((child) => child?.type === 'heredoc_start');
  const body = node.children.find((child) => child?.type === 'heredoc_body');
  if (!start) return unsupported(node);
  if (!body || /['"\\]/.test(start.text)) return undefined;
  const expanding = body.namedChildren.find((child) => child !== null && child.type !== 'heredoc_content');
  if (!expanding) return undefined;
  return deny('policy.parse.expansion', `The here-document expands ${expanding.text}; quote its delimiter (<<'EOF') to pass the text literally.`);
}

function unsupported(node: Node): Decision {
  return deny('policy.parse.unsupported', `The policy cannot classify the redirection ${node.text}.`);
}
