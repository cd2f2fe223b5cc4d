// Source→sink reasoning inside a file: which expressions carry request input (or other untrusted input).
import { type AstNode, calleePath, child, children, identifierName, memberPath, walk } from '../../../project/ast.js';

/** Member paths that are untrusted input: Express/Fastify/Koa/Hapi requests, serverless events, argv, the browser location. */
const sourcePattern = /^(?:req|request|ctx|ctx\.request|context|event|c\.req)\.(?:body|query|params|headers|cookies|signedCookies|url|originalUrl|path|hostname|files?|payload|queryStringParameters|pathParameters|rawBody)\b|^process\.argv\b|^(?:window\.|document\.)?location\.(?:search|hash|href)\b|^document\.(?:URL|referrer|cookie)\b/;

/** Calls whose result no longer carries the input as a string an attacker controls. */
const sanitizers = /^(?:parseInt|parseFloat|Number|Boolean|Math\.\w+|encodeURIComponent|encodeURI|escape|escapeHtml|he\.encode|he\.escape|validator\.\w+|xss|sanitize\w*|\w+\.sanitize\w*|DOMPurify\.sanitize|sanitizeHtml|path\.basename|basename|\w+\.escape|\w+\.escapeId|\w+\.(?:parse|safeParse|validate|validateSync|cast)|crypto\.\w+|bcrypt\.\w+|\w+\.createHash|uuid\w*|isValid\w*|Joi\.\w+)$/;

/** Coercions that stop operator injection (objects) but not string injection. */
const coercions = /^(?:String|\w+\.toString|\w+\.trim|\w+\.toLowerCase|\w+\.toUpperCase)$/;

export type TaintOptions = { coercionSanitizes?: boolean };

export type Taint = {
  /** True when the expression may carry untrusted input. */
  isTainted: (node: AstNode | null, ancestors: readonly AstNode[], options?: TaintOptions) => boolean;
  /** The source path the expression is rooted in, when it is a direct read (e.g. `req.params.id`). */
  directSource: (node: AstNode | null) => string | null;
};

const functionTypes = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function boundNames(pattern: AstNode | null, into: string[] = []): string[] {
  if (!pattern) return into;
  switch (pattern.type) {
    case 'Identifier': into.push(pattern.name as string); break;
    case 'ObjectPattern': for (const property of children(pattern, 'properties')) boundNames(property.type === 'RestElement' ? child(property, 'argument') : child(property, 'value'), into); break;
    case 'ArrayPattern': for (const element of children(pattern, 'elements')) boundNames(element, into); break;
    case 'AssignmentPattern': boundNames(child(pattern, 'left'), into); break;
    case 'RestElement': boundNames(child(pattern, 'argument'), into); break;
    case 'TSParameterProperty': boundNames(child(pattern, 'parameter'), into); break;
    default: break;
  }
  return into;
}

const computed = new WeakMap<AstNode, Taint>();

/** The taint facts of a program, computed once per parse tree (the injection and XSS checks share them). */
export function analyseTaint(program: AstNode): Taint {
  let taint = computed.get(program);
  if (!taint) {
    taint = computeTaint(program);
    computed.set(program, taint);
  }
  return taint;
}

/** Iterates declarations, assignments and calls to local functions to a fixed point. */
function computeTaint(program: AstNode): Taint {
  const declared = new Map<AstNode, Set<string>>([[program, new Set()]]);
  const localFunctions = new Map<string, AstNode>();
  const scopeOf = (ancestors: readonly AstNode[]): AstNode => {
    for (let index = ancestors.length - 1; index >= 0; index -= 1) {
      const node = ancestors[index] as AstNode;
      if (functionTypes.has(node.type)) return node;
    }
    return program;
  };
  walk(program, (node, ancestors) => {
    if (functionTypes.has(node.type)) {
      declared.set(node, new Set(children(node, 'params').flatMap((param) => boundNames(param))));
      const name = identifierName(child(node, 'id'));
      if (name) localFunctions.set(name, node);
    } else if (node.type === 'VariableDeclarator') {
      const scope = scopeOf(ancestors);
      for (const name of boundNames(child(node, 'id'))) declared.get(scope)?.add(name);
      const init = child(node, 'init');
      const name = identifierName(child(node, 'id'));
      if (name && init && functionTypes.has(init.type)) localFunctions.set(name, init);
    }
  });

  const keyOf = (name: string, ancestors: readonly AstNode[]): string => {
    for (let index = ancestors.length - 1; index >= 0; index -= 1) {
      const node = ancestors[index] as AstNode;
      if (functionTypes.has(node.type) && declared.get(node)?.has(name)) return `${node.start}:${name}`;
    }
    return `${program.start}:${name}`;
  };
  const tainted = new Set<string>();

  const directSource = (node: AstNode | null): string | null => {
    const path = memberPath(node);
    return path && sourcePattern.test(path) ? path : null;
  };

  const isTainted = (node: AstNode | null, ancestors: readonly AstNode[], options: TaintOptions = {}): boolean => {
    if (!node) return false;
    switch (node.type) {
      case 'Identifier':
        return tainted.has(keyOf(node.name as string, ancestors));
      case 'MemberExpression':
        return directSource(node) !== null || isTainted(child(node, 'object'), ancestors, options);
      case 'TemplateLiteral':
        return children(node, 'expressions').some((expression) => isTainted(expression, ancestors, options));
      case 'BinaryExpression':
        return node.operator === '+' && (isTainted(child(node, 'left'), ancestors, options) || isTainted(child(node, 'right'), ancestors, options));
      case 'LogicalExpression':
        return isTainted(child(node, 'left'), ancestors, options) || isTainted(child(node, 'right'), ancestors, options);
      case 'ConditionalExpression':
        return isTainted(child(node, 'consequent'), ancestors, options) || isTainted(child(node, 'alternate'), ancestors, options);
      case 'AssignmentExpression':
        return isTainted(child(node, 'right'), ancestors, options);
      case 'AwaitExpression': case 'TSAsExpression': case 'TSNonNullExpression': case 'ParenthesizedExpression': case 'ChainExpression': case 'TSSatisfiesExpression': case 'TSTypeAssertion':
        return isTainted(child(node, 'expression') ?? child(node, 'argument'), ancestors, options);
      case 'SpreadElement':
        return isTainted(child(node, 'argument'), ancestors, options);
      case 'ArrayExpression':
        return children(node, 'elements').some((element) => isTainted(element, ancestors, options));
      case 'ObjectExpression':
        return children(node, 'properties').some((property) => isTainted(property.type === 'SpreadElement' ? property : child(property, 'value'), ancestors, options));
      case 'CallExpression': case 'NewExpression': {
        const callee = calleePath(node) ?? '';
        if (sanitizers.test(callee)) return false;
        if (options.coercionSanitizes && coercions.test(callee)) return false;
        const calleeNode = child(node, 'callee');
        if (calleeNode?.type === 'MemberExpression' && isTainted(child(calleeNode, 'object'), ancestors, options)) return true;
        return children(node, 'arguments').some((argument) => !functionTypes.has(argument.type) && isTainted(argument, ancestors, options));
      }
      default:
        return false;
    }
  };

  // Propagate through declarations, assignments and calls to functions of this file until nothing changes.
  for (let round = 0; round < 6; round += 1) {
    const before = tainted.size;
    walk(program, (node, ancestors) => {
      if (node.type === 'VariableDeclarator') {
        if (isTainted(child(node, 'init'), ancestors)) for (const name of boundNames(child(node, 'id'))) tainted.add(keyOf(name, ancestors));
      } else if (node.type === 'AssignmentExpression') {
        const left = child(node, 'left');
        const target = left?.type === 'MemberExpression' ? rootIdentifier(left) : left;
        if (target && isTainted(child(node, 'right'), ancestors)) for (const name of boundNames(target)) tainted.add(keyOf(name, ancestors));
      } else if (node.type === 'CallExpression') {
        const fn = localFunctions.get(identifierName(child(node, 'callee')) ?? '');
        if (!fn) return;
        children(node, 'arguments').forEach((argument, index) => {
          const param = children(fn, 'params')[index];
          if (param && isTainted(argument, ancestors)) for (const name of boundNames(param)) tainted.add(`${fn.start}:${name}`);
        });
      } else if (node.type === 'ForOfStatement' || node.type === 'ForInStatement') {
        const left = child(node, 'left');
        const pattern = left?.type === 'VariableDeclaration' ? child(children(left, 'declarations')[0] as AstNode, 'id') : left;
        if (isTainted(child(node, 'right'), ancestors)) for (const name of boundNames(pattern)) tainted.add(keyOf(name, [...ancestors, node]));
      }
    });
    if (tainted.size === before) break;
  }
  return { isTainted, directSource };
}

function rootIdentifier(node: AstNode): AstNode | null {
  let current: AstNode | null = node;
  while (current?.type === 'MemberExpression') current = child(current, 'object');
  return current?.type === 'Identifier' ? current : null;
}
