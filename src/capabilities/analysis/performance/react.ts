// Render performance: missing keys, new objects/functions as props in lists, effects without a dependency list.
import { type AstNode, calleePath, child, children, identifierName, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'performance', category: 'rendering', title, help });

export const reactRules = {
  missingKey: rule('performance/missing-key', 'List item without a key', 'Give each element a stable key from the data (key={item.id}), not the array index.'),
  inlineProp: rule('performance/inline-prop-in-list', 'New object or function passed as a prop in a list', 'Hoist constants out of the component, wrap callbacks in useCallback and objects in useMemo, and memo() the item component.'),
  effectDeps: rule('performance/effect-without-deps', 'Effect without a dependency list', 'Pass the dependency array (useEffect(fn, [a, b])); [] to run once.'),
};

const memoHooks = /^(?:React\.)?(?:useEffect|useLayoutEffect|useMemo|useCallback)$/;

export function checkReact(file: SourceFile): Finding[] {
  if (!file.parsed || !/\.(?:[jt]sx|js)$/.test(file.path)) return [];
  const findings: Finding[] = [];
  const memoised = memoisedComponents(file.parsed.program);
  walk(file.parsed.program, (node) => {
    if (node.type === 'CallExpression') {
      const callee = calleePath(node) ?? '';
      if (memoHooks.test(callee) && children(node, 'arguments').length === 1) {
        findings.push(findingAt(file, node, reactRules.effectDeps, { severity: 'Medium', message: `${callee}() has no dependency list: it runs after every render.`, fix: reactRules.effectDeps.help }));
      }
      if (/\.map$/.test(callee)) checkListCallback(file, node, findings, memoised);
    }
  });
  return findings;
}

/** Components of this file wrapped in memo(): only these skip a render when their props keep their identity. */
function memoisedComponents(program: AstNode): Set<string> {
  const names = new Set<string>();
  walk(program, (node) => {
    if (node.type !== 'VariableDeclarator') return;
    const init = child(node, 'init');
    const name = identifierName(child(node, 'id'));
    if (name && init?.type === 'CallExpression' && /^(?:React\.)?memo$/.test(calleePath(init) ?? '')) names.add(name);
  });
  return names;
}

function checkListCallback(file: SourceFile, call: AstNode, findings: Finding[], memoised: ReadonlySet<string>): void {
  const callback = children(call, 'arguments')[0];
  if (!callback?.type.includes('Function')) return;
  for (const element of returnedElements(callback)) {
    const opening = child(element, 'openingElement');
    if (!opening) continue;
    const attributes = children(opening, 'attributes');
    const named = (attribute: AstNode): string | null => identifierName(child(attribute, 'name'));
    if (!attributes.some((attribute) => named(attribute) === 'key' || attribute.type === 'JSXSpreadAttribute')) {
      findings.push(findingAt(file, element, reactRules.missingKey, { severity: 'Medium', message: 'Elements rendered from .map() have no key: React re-creates them instead of updating.', fix: reactRules.missingKey.help }));
    }
    const tag = identifierName(child(opening, 'name')) ?? '';
    // Only memoised components skip renders when their props keep their identity; for the others a new function costs nothing extra.
    if (!memoised.has(tag)) continue;
    for (const attribute of attributes) {
      const expression = child(child(attribute, 'value') ?? attribute, 'expression');
      if (!expression || named(attribute) === 'key') continue;
      const kind = expression.type === 'ObjectExpression' ? 'object' : expression.type === 'ArrayExpression' ? 'array' : expression.type === 'ArrowFunctionExpression' || expression.type === 'FunctionExpression' ? 'function' : null;
      if (kind) findings.push(findingAt(file, attribute, reactRules.inlineProp, { severity: 'Low', message: `<${tag} ${named(attribute)}={…}> gets a new ${kind} for every item on every render, so memoised items re-render anyway.`, fix: reactRules.inlineProp.help }));
    }
  }
}

function returnedElements(callback: AstNode): AstNode[] {
  const body = child(callback, 'body');
  if (!body) return [];
  const unwrap = (node: AstNode | null): AstNode | null => (node?.type === 'ParenthesizedExpression' ? unwrap(child(node, 'expression')) : node);
  if (body.type !== 'BlockStatement') {
    const value = unwrap(body);
    return value?.type === 'JSXElement' ? [value] : [];
  }
  return children(body, 'body').filter((statement) => statement.type === 'ReturnStatement').map((statement) => unwrap(child(statement, 'argument'))).filter((node): node is AstNode => node?.type === 'JSXElement');
}
