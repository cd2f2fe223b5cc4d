// checkCommand: parse a command line with a real shell parser and decide whether the vm-agent may run it.
import type { Node } from 'web-tree-sitter';
import { allow, deny, isSpecificDenial, type Decision } from './decision.js';
import { classifyCommand } from './classify.js';
import { parseShell } from './parser.js';
import { walkScript } from './script.js';
import { firstDisagreement, readLikeBash, treeSitterSpans } from './second-reading.js';
import { describeOddCharacter, hasInvisibleCharacter, hasOddSpace } from './unicode.js';

export interface CommandPolicyOptions {
  /** Where redirections may write; defaults to /workspace. */
  workspace?: string;
}

const maximumLength = 64 * 1024;
const literalTypes = new Set(['raw_string', 'string_content', 'heredoc_body', 'heredoc_content', 'comment', 'ansi_c_string']);

/** Decides whether a command line may run. Anything the parser cannot classify is denied. */
export async function checkCommand(command: string, options: CommandPolicyOptions = {}): Promise<Decision> {
  const workspace = options.workspace ?? '/workspace';
  if (command.length > maximumLength) return deny('policy.parse.too-long', `The command is longer than ${maximumLength} characters.`);
  if (command.trim() === '') return deny('policy.parse.empty', 'The command is empty.');
  if (hasInvisibleCharacter(command)) {
    return deny('policy.unicode.invisible', `The command contains an invisible or control character (${describeOddCharacter(command)}) that can hide what runs.`);
  }
  if (hasOddSpace(command)) {
    return deny('policy.unicode.lookalike', `The command contains a look-alike space (${describeOddCharacter(command)}) that the shell does not treat as a space.`);
  }
  const tree = await parseShell(command);
  try {
    return decide(tree.rootNode, command, workspace);
  } finally {
    tree.delete();
  }
}

function decide(root: Node, command: string, workspace: string): Decision {
  const substitution = root.descendantsOfType(['command_substitution', 'process_substitution'])[0];
  if (substitution) {
    return deny('policy.blocked.substitution', `${substitution.text} runs a command inside the command; substitutions are blocked.`);
  }
  if (root.hasError) return deny('policy.parse.error', `The shell parser cannot read the command ${whereBroken(root)}.`);
  const continuation = gluedContinuation(root, command);
  if (continuation) return continuation;
  const script = walkScript(root);
  const decisions = [...script.denials, ...script.commands.map((simple) => classifyCommand(simple, workspace))];
  const denials = decisions.filter((decision) => decision.decision === 'deny');
  const chosen = denials.find(isSpecificDenial) ?? denials[0];
  if (chosen) return chosen;
  const programs = [...new Set(decisions.map((decision) => decision.program).filter((name) => name !== undefined))];
  if (programs.length === 0) return deny('policy.parse.empty', 'The command runs no program.');
  return crossCheck(root, command) ?? allow('policy.allowed', `${programs.join(', ')}: allowed, and nothing blocked was found.`, { program: programs[0] });
}

/**
 * Parsers differ from bash on some quoting ($'a\\' read as one word up to a later quote, while bash ends it and
 * runs what follows): an allowed command is read a second time by bash's own rules, and any difference denies it.
 */
function crossCheck(root: Node, command: string): Decision | undefined {
  const bash = readLikeBash(command);
  if (!bash.ok) {
    return deny('policy.parse.disagreement', `Read by bash's quoting rules, the command holds ${bash.what} near column ${bash.at + 1} that the parser did not see; write it more plainly.`);
  }
  const differs = firstDisagreement(command, treeSitterSpans(root), bash.spans);
  return differs === undefined ? undefined : deny('policy.parse.disagreement', `The shell parser and bash read the command differently: ${differs}.`);
}

function whereBroken(root: Node): string {
  const broken = root.descendantsOfType('ERROR')[0] ?? findMissing(root);
  if (!broken) return '';
  return `near column ${broken.startPosition.column + 1} of line ${broken.startPosition.row + 1}`;
}

function findMissing(node: Node): Node | undefined {
  if (node.isMissing) return node;
  for (const child of node.children) {
    const found = child ? findMissing(child) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * bash joins `r\<newline>m` into one word; tree-sitter splits it in two. A backslash-newline glued to a word
 * outside quotes would make the parser and the shell disagree, so it is refused.
 */
function gluedContinuation(root: Node, command: string): Decision | undefined {
  for (const match of command.matchAll(/(\\+)\n/g)) {
    const slashes = match[1] ?? '';
    const start = match.index ?? 0;
    if (slashes.length % 2 === 0) continue;
    const node = root.descendantForIndex(start + slashes.length - 1);
    if (node && (literalTypes.has(node.type) || node.parent?.type === 'string')) continue;
    const before = command[start - 1];
    if (before !== undefined && !/\s/.test(before)) {
      return deny('policy.parse.line-continuation', 'A backslash-newline inside a word joins the word for the shell but not for the parser; put the word on one line.');
    }
  }
  return undefined;
}
