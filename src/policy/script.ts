// Walks a bash syntax tree into the simple commands it would run; constructs it cannot vouch for are denials.
import type { Node } from 'web-tree-sitter';
import { deny, type Decision } from './decision.js';
import { resolveWord, type WordResult } from './words.js';

export interface Assignment {
  name: string;
  value: WordResult;
}

/** One simple command as the shell would run it, with where its standard input comes from. */
export interface SimpleCommand {
  node: Node;
  assignments: Assignment[];
  /** The command name first, then the arguments; empty for a bare assignment. */
  words: WordResult[];
  redirects: Node[];
  /** Earlier stages of the pipeline feeding this command's standard input. */
  upstream: SimpleCommand[];
  piped: boolean;
}

export interface Script {
  commands: SimpleCommand[];
  denials: Decision[];
}

interface Context {
  piped: boolean;
  upstream: SimpleCommand[];
}

const noPipe: Context = { piped: false, upstream: [] };
const sequenceTypes = new Set(['program', 'list', 'compound_statement', 'subshell', 'negated_command']);

/** Flattens the tree into simple commands; unsupported syntax is returned as denials. */
export function walkScript(root: Node): Script {
  const script: Script = { commands: [], denials: [] };
  walk(root, noPipe, script);
  return script;
}

function unsupported(node: Node): Decision {
  const shown = node.text.length > 60 ? `${node.text.slice(0, 57)}...` : node.text;
  return deny(
    'policy.parse.unsupported',
    `The policy accepts simple commands joined by |, &&, || and ; — not a ${node.type.replace(/_/g, ' ')} (${shown}).`,
  );
}

function walk(node: Node, context: Context, script: Script): SimpleCommand[] {
  if (sequenceTypes.has(node.type)) {
    const created: SimpleCommand[] = [];
    for (const child of node.namedChildren) {
      if (child && child.type !== 'comment') created.push(...walk(child, context, script));
    }
    return created;
  }
  switch (node.type) {
    case 'pipeline':
      return walkPipeline(node, context, script);
    case 'command':
      return [collectCommand(node, [], context, script)];
    case 'redirected_statement':
      return walkRedirected(node, context, script);
    case 'variable_assignment': {
      const command = bareAssignment(node, context, script);
      return command ? [command] : [];
    }
    default:
      script.denials.push(unsupported(node));
      return [];
  }
}

function walkPipeline(node: Node, context: Context, script: Script): SimpleCommand[] {
  let upstream = context.upstream;
  let piped = context.piped;
  const created: SimpleCommand[] = [];
  for (const stage of node.namedChildren) {
    if (!stage) continue;
    const stageCommands = walk(stage, { piped, upstream }, script);
    created.push(...stageCommands);
    upstream = [...upstream, ...stageCommands];
    piped = true;
  }
  return created;
}

function walkRedirected(node: Node, context: Context, script: Script): SimpleCommand[] {
  const body = node.childForFieldName('body');
  const redirects = node.childrenForFieldName('redirect').filter((child): child is Node => child !== null);
  if (!body) {
    script.denials.push(unsupported(node));
    return [];
  }
  if (body.type === 'command') {
    const command = collectCommand(body, redirects, context, script);
    return [command, ...heredocContinuations(command, redirects, script)];
  }
  // Redirections around a compound statement: keep them on a bare placeholder so they are still checked.
  const created = walk(body, context, script);
  const holder: SimpleCommand = { node, assignments: [], words: [], redirects, upstream: [], piped: false };
  script.commands.push(holder);
  return [...created, holder, ...heredocContinuations(holder, redirects, script)];
}

const heredocParts = new Set(['<<', '<<-', 'heredoc_start', 'heredoc_body', 'heredoc_end']);

/** tree-sitter-bash nests what follows `cat <<EOF` on the same line (| sh, && x) inside the redirect. */
function heredocContinuations(command: SimpleCommand, redirects: Node[], script: Script): SimpleCommand[] {
  const created: SimpleCommand[] = [];
  for (const redirect of redirects.filter((node) => node.type === 'heredoc_redirect')) {
    redirect.children.forEach((child, index) => {
      if (!child || heredocParts.has(child.type)) return;
      const field = redirect.fieldNameForChild(index);
      if (child.type === 'pipeline') {
        created.push(...walkPipeline(child, { piped: true, upstream: [command] }, script));
      } else if (field === 'right') {
        created.push(...walk(child, noPipe, script));
      } else if (field !== 'operator') {
        script.denials.push(unsupported(child));
      }
    });
  }
  return created;
}

function collectCommand(node: Node, outerRedirects: Node[], context: Context, script: Script): SimpleCommand {
  const command: SimpleCommand = {
    node, assignments: [], words: [], redirects: [...outerRedirects], upstream: context.upstream, piped: context.piped,
  };
  node.children.forEach((child, index) => {
    if (!child) return;
    const field = node.fieldNameForChild(index);
    if (child.type === 'variable_assignment') {
      const assignment = readAssignment(child, script);
      if (assignment) command.assignments.push(assignment);
    } else if (field === 'redirect') {
      command.redirects.push(child);
    } else if (field === 'name') {
      const inner = child.namedChildCount === 1 ? child.namedChild(0) : null;
      if (inner) command.words.push(resolveWord(inner));
      else script.denials.push(unsupported(child));
    } else if (field === 'argument') {
      command.words.push(resolveWord(child));
    } else {
      script.denials.push(unsupported(child));
    }
  });
  script.commands.push(command);
  return command;
}

function bareAssignment(node: Node, context: Context, script: Script): SimpleCommand | undefined {
  const assignment = readAssignment(node, script);
  if (!assignment) return undefined;
  const command: SimpleCommand = { node, assignments: [assignment], words: [], redirects: [], upstream: context.upstream, piped: context.piped };
  script.commands.push(command);
  return command;
}

function readAssignment(node: Node, script: Script): Assignment | undefined {
  const name = node.childForFieldName('name');
  const value = node.childForFieldName('value');
  const operator = node.children.find((child) => child && !child.isNamed)?.type;
  if (!name || name.type !== 'variable_name' || (operator !== '=' && operator !== '+=')) {
    script.denials.push(unsupported(node));
    return undefined;
  }
  const resolved: WordResult = value ? resolveWord(value) : { ok: true, value: '', segments: [] };
  return { name: name.text, value: resolved };
}
