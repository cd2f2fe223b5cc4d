// Memory leaks: listeners and intervals without cleanup, unbounded module-level caches.
import { type AstNode, calleePath, child, children, identifierName, memberPath, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'performance', category: 'memory', title, help });

export const leakRules = {
  listener: rule('performance/listener-without-cleanup', 'Event listener or subscription never removed', 'Remove it in the cleanup (return () => target.removeEventListener(…) from the effect, or off/unsubscribe on teardown).'),
  interval: rule('performance/interval-without-cleanup', 'Interval never cleared', 'Keep the id and clearInterval it on teardown (return () => clearInterval(id) from the effect).'),
  cache: rule('performance/unbounded-cache', 'Module-level cache that only grows', 'Bound it: an LRU with a maximum size (lru-cache), a TTL, or a WeakMap keyed by objects.'),
};

const effectHooks = /^(?:React\.)?(?:useEffect|useLayoutEffect)$|^(?:onMounted|componentDidMount)$/;
const cacheName = /(?:cache|memo|store|registry|seen|visited|history|lookup|index)$/i;

export function checkLeaks(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const findings: Finding[] = [];
  const program = file.parsed.program;
  const text = file.text;
  walk(program, (node) => {
    if (node.type !== 'CallExpression' || !effectHooks.test(calleePath(node) ?? '')) return;
    const effect = children(node, 'arguments')[0];
    const body = effect ? child(effect, 'body') : null;
    if (!effect || !body) return;
    const returnsCleanup = body.type !== 'BlockStatement' ? false : children(body, 'body').some((statement) => statement.type === 'ReturnStatement' && child(statement, 'argument') !== null);
    walk(body, (inner) => {
      if (inner.type !== 'CallExpression') return;
      const callee = calleePath(inner) ?? '';
      if (/(?:^|\.)setInterval$/.test(callee) && !returnsCleanup && !(/clearInterval\s*\(/.test(text) && !isDiscarded(inner, body))) {
        findings.push(findingAt(file, inner, leakRules.interval, { severity: 'High', message: 'setInterval() in an effect is never cleared: every re-render or remount adds another timer.', fix: leakRules.interval.help }));
      } else if (/\.(?:addEventListener|on|addListener|subscribe)$/.test(callee) && !returnsCleanup) {
        findings.push(findingAt(file, inner, leakRules.listener, { severity: 'Medium', message: `${callee}() in an effect has no cleanup: listeners pile up on every run.`, fix: leakRules.listener.help }));
      }
    });
    return false;
  });
  // Outside effects: intervals whose id is thrown away, in files that never clear intervals.
  if (!/clearInterval\s*\(/.test(text)) {
    walk(program, (node, ancestors) => {
      if (node.type === 'CallExpression' && effectHooks.test(calleePath(node) ?? '')) return false;
      if (node.type === 'CallExpression' && /^(?:window\.|globalThis\.)?setInterval$/.test(calleePath(node) ?? '') && ancestors.at(-1)?.type === 'ExpressionStatement' && ancestors.some((ancestor) => ancestor.type.includes('Function'))) {
        findings.push(findingAt(file, node, leakRules.interval, { severity: 'Medium', message: 'setInterval() inside a function keeps running forever: its id is discarded and nothing clears it.', fix: leakRules.interval.help }));
      }
      return undefined;
    });
  }
  findings.push(...unboundedCaches(file, program));
  return findings;
}

/** The call's result is thrown away (a bare statement), so nothing could clear it later. */
function isDiscarded(call: AstNode, within: AstNode): boolean {
  let discarded = false;
  walk(within, (node) => {
    if (node.type === 'ExpressionStatement' && child(node, 'expression') === call) discarded = true;
  });
  return discarded;
}

function unboundedCaches(file: SourceFile, program: AstNode): Finding[] {
  const candidates = new Map<string, AstNode>();
  for (const statement of children(program, 'body')) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? child(statement, 'declaration') : statement;
    if (declaration?.type !== 'VariableDeclaration') continue;
    for (const declarator of children(declaration, 'declarations')) {
      const name = identifierName(child(declarator, 'id'));
      const init = child(declarator, 'init');
      const isCollection = (init?.type === 'NewExpression' && /^(?:Map|Set|Array)$/.test(identifierName(child(init, 'callee')) ?? '')) || init?.type === 'ObjectExpression' && children(init, 'properties').length === 0 || init?.type === 'ArrayExpression' && children(init, 'elements').length === 0;
      if (name && isCollection && cacheName.test(name)) candidates.set(name, declarator);
    }
  }
  if (candidates.size === 0) return [];
  const grows = new Set<string>();
  const shrinks = new Set<string>();
  walk(program, (node, ancestors) => {
    const insideFunction = ancestors.some((ancestor) => ancestor.type.includes('Function'));
    if (node.type === 'CallExpression') {
      const path = calleePath(node) ?? '';
      const owner = path.slice(0, path.lastIndexOf('.'));
      if (!candidates.has(owner)) return;
      const method = path.slice(path.lastIndexOf('.') + 1);
      if (/^(?:set|add|push|unshift)$/.test(method) && insideFunction) grows.add(owner);
      if (/^(?:delete|clear|shift|pop|splice)$/.test(method)) shrinks.add(owner);
    } else if (node.type === 'AssignmentExpression') {
      const left = child(node, 'left');
      const owner = left?.type === 'MemberExpression' && left.computed ? memberPath(child(left, 'object')) : null;
      if (owner && candidates.has(owner) && insideFunction) grows.add(owner);
    } else if (node.type === 'UnaryExpression' && node.operator === 'delete') {
      const owner = memberPath(child(child(node, 'argument') ?? node, 'object'));
      if (owner) shrinks.add(owner);
    } else if (node.type === 'MemberExpression') {
      const path = memberPath(node);
      if (path && /\.(?:size|length)$/.test(path) && candidates.has(path.slice(0, path.lastIndexOf('.'))) && ancestors.at(-1)?.type === 'BinaryExpression') shrinks.add(path.slice(0, path.lastIndexOf('.')));
    }
  });
  return [...grows].filter((name) => !shrinks.has(name)).map((name) => findingAt(file, candidates.get(name) as AstNode, leakRules.cache, {
    severity: 'Medium', message: `${name} lives for the whole process and only grows: entries are added but never evicted.`, fix: leakRules.cache.help,
  }));
}
