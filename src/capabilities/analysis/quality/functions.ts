// Per-function metrics: cyclomatic and cognitive complexity, length, nesting depth, parameter count.
import { type AstNode, child, children, identifierName, isNode, memberPath, walk } from '../../../project/ast.js';
import { visitorKeys } from 'oxc-parser';

export type FunctionMetrics = {
  name: string;
  node: AstNode;
  cyclomatic: number;
  cognitive: number;
  lines: number;
  maxNesting: number;
  params: number;
};

const functionTypes = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const nestingTypes = new Set(['IfStatement', 'SwitchStatement', 'ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement', 'CatchClause', 'ConditionalExpression']);

export function functionMetrics(program: AstNode, lineOf: (offset: number) => number): FunctionMetrics[] {
  const results: FunctionMetrics[] = [];
  walk(program, (node, ancestors) => {
    if (!functionTypes.has(node.type)) return;
    const body = child(node, 'body');
    if (!body) return;
    const counters = { cyclomatic: 1, cognitive: 0, maxNesting: 0 };
    measure(body, 0, counters);
    results.push({
      name: functionName(node, ancestors),
      node,
      ...counters,
      lines: lineOf(node.end) - lineOf(node.start) + 1,
      params: children(node, 'params').length,
    });
  });
  return results;
}

function measure(node: AstNode, nesting: number, counters: { cyclomatic: number; cognitive: number; maxNesting: number }, elseIf = false): void {
  if (functionTypes.has(node.type)) return;
  let innerNesting = nesting;
  switch (node.type) {
    case 'IfStatement':
      counters.cyclomatic += 1;
      counters.cognitive += elseIf ? 1 : 1 + nesting;
      innerNesting = nesting + 1;
      break;
    case 'ForStatement': case 'ForInStatement': case 'ForOfStatement': case 'WhileStatement': case 'DoWhileStatement':
      counters.cyclomatic += 1;
      counters.cognitive += 1 + nesting;
      innerNesting = nesting + 1;
      break;
    case 'CatchClause': case 'SwitchStatement':
      counters.cognitive += 1 + nesting;
      if (node.type === 'CatchClause') counters.cyclomatic += 1;
      innerNesting = nesting + 1;
      break;
    case 'SwitchCase':
      if (child(node, 'test')) counters.cyclomatic += 1;
      break;
    case 'ConditionalExpression':
      counters.cyclomatic += 1;
      counters.cognitive += 1 + nesting;
      innerNesting = nesting + 1;
      break;
    case 'LogicalExpression': {
      counters.cyclomatic += 1;
      // A run of the same operator counts once (a && b && c), each change of operator once more.
      const parent = node as AstNode & { operator: string };
      const left = child(node, 'left');
      if (!(left?.type === 'LogicalExpression' && left.operator === parent.operator)) counters.cognitive += 1;
      break;
    }
    case 'BreakStatement': case 'ContinueStatement':
      if (child(node, 'label')) counters.cognitive += 1;
      break;
    default:
      break;
  }
  if (nestingTypes.has(node.type)) counters.maxNesting = Math.max(counters.maxNesting, innerNesting);
  if (node.type === 'IfStatement') {
    const test = child(node, 'test');
    const consequent = child(node, 'consequent');
    const alternate = child(node, 'alternate');
    if (test) measure(test, nesting, counters);
    if (consequent) measure(consequent, innerNesting, counters);
    if (alternate?.type === 'IfStatement') measure(alternate, nesting, counters, true);
    else if (alternate) {
      counters.cognitive += 1;
      measure(alternate, innerNesting, counters);
    }
    return;
  }
  for (const key of visitorKeys[node.type] ?? []) {
    const value = node[key];
    if (Array.isArray(value)) for (const item of value) { if (isNode(item)) measure(item, innerNesting, counters); }
    else if (isNode(value)) measure(value, innerNesting, counters);
  }
}

function functionName(node: AstNode, ancestors: readonly AstNode[]): string {
  const own = identifierName(child(node, 'id'));
  if (own) return own;
  const parent = ancestors.at(-1);
  if (parent?.type === 'VariableDeclarator') return identifierName(child(parent, 'id')) ?? '(anonymous)';
  if (parent?.type === 'Property' || parent?.type === 'MethodDefinition' || parent?.type === 'PropertyDefinition') return identifierName(child(parent, 'key')) ?? '(method)';
  if (parent?.type === 'AssignmentExpression') return memberPath(child(parent, 'left')) ?? '(anonymous)';
  if (parent?.type === 'CallExpression') return `callback of ${memberPath(child(parent, 'callee')) ?? 'a call'}`;
  return '(anonymous)';
}
