// Source→sink reasoning inside a file with labels: 'input' for untrusted input, and one label per function parameter so that flows from parameters can be summarised for callers in other files.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import type { Roles } from './roles.js';
import { type FileScope, functionTypes } from './scope.js';

export type Labels = ReadonlySet<string>;
export const inputLabel = 'input';
const noLabels: Labels = new Set();

/**
 * The label of a function's parameter: `p<start of the function>:<slot>`, where the slot is the parameter's index
 * (`0`) or, for a field of it, index and key (`0.templatePath`): options objects are followed field by field.
 */
export function paramLabel(fn: AstNode, slot: string): string {
  return `p${fn.start}:${slot}`;
}

/** The function start and slot of a parameter label, or null for other labels. */
export function parseParamLabel(label: string): { fn: number; slot: string } | null {
  const match = /^p(\d+):(\d+(?:\.[^.]+)?)$/.exec(label);
  return match ? { fn: Number(match[1]), slot: match[2] as string } : null;
}

/** The argument expression a slot names: `1` → the second argument, `0.path` → its `path` property when the argument is an object literal. */
export function argumentAt(args: readonly AstNode[], slot: string): { node: AstNode | null; whole: boolean } {
  const [index, key] = slot.split('.');
  const argument = args[Number(index)] ?? null;
  if (key === undefined || argument?.type !== 'ObjectExpression') return { node: argument, whole: key === undefined };
  const property = children(argument, 'properties').find((candidate) => (identifierName(child(candidate, 'key')) ?? staticString(child(candidate, 'key'))) === key);
  return { node: property ? child(property, 'value') : null, whole: false };
}

/** Browser locations, the page's URL and referrer, and the header fields of a JWT (kid, jku, x5u, x5c, jwk), which whoever sends the token chooses. */
const sourcePattern = new RegExp([
  /^(?:window\.|document\.|globalThis\.|self\.)?location(?:\.(?:search|hash|href|pathname))?$|^document\.(?:URL|documentURI|referrer|baseURI)$|^window\.name$/.source,
  /^(?!this\.)[\w$.]+\.(?:kid|jku|x5u|x5c|jwk)$/.source,
  // The browser's address as a client router gives it: Angular's ActivatedRoute(Snapshot) and Router.url, Vue Router's $route.
  /^(?:this\.)?[\w$]*[rR]oute(?:Snapshot)?(?:\.snapshot)?\.(?:params|queryParams|fragment|paramMap|queryParamMap|url|query|hash)$|^(?:this\.)?router\.url$/.source,
].join('|'));

/** Fields of a request (or Koa context) that the server itself sets: reading them off a handler's parameter is not reading input. */
const serverSideFields = new Set(['session', 'user', 'app', 'locals', 'state', 'isAuthenticated', 'log', 'server', 'signedCookies', 'routeOptions', 'routerPath', 'method', 'protocol', 'secure', 'res', 'response']);

/** Calls whose result no longer carries the input as a string an attacker controls. */
const sanitizers = /^(?:parseInt|parseFloat|Number|Boolean|Math\.\w+|encodeURIComponent|encodeURI|escape|escapeHtml|he\.encode|he\.escape|validator\.\w+|xss|sanitize\w*|\w+\.sanitize\w*|DOMPurify\.sanitize|sanitizeHtml|path\.basename|basename|\w+\.escape|\w+\.escapeId|\w+\.escapeLiteral|\w+\.escapeIdentifier|\w+\.(?:parse|safeParse|validate|validateSync|cast)|crypto\.\w+|bcrypt\.\w+|\w+\.createHash|uuid\w*|isValid\w*|Joi\.\w+|\w+\.isValid\w*|\w+\.(?:includes|startsWith|endsWith|test|has|indexOf))$/;

/** `parse` that reads text into a structure (URLs, query strings, JSON) rather than checking it against a schema. */
const parsers = /^(?:url|URL|querystring|qs|JSON|path|cookie|yaml|YAML|toml|ini|xml2js|csv|parser)\.(?:parse|safeParse|validate|cast)$/;

/** Coercions that stop operator injection (objects) but not string injection. */
const coercions = /^(?:String|\w+\.toString|\w+\.trim|\w+\.toLowerCase|\w+\.toUpperCase)$/;
const iterationMethods = /\.(?:forEach|map|filter|some|every|find|findLast|flatMap|reduce)$/;

export type TaintOptions = { coercionSanitizes?: boolean };

export type Taint = {
  /** Every label the value of `node` may carry. */
  labelsOf: (node: AstNode | null, ancestors: readonly AstNode[], options?: TaintOptions) => Labels;
  /** True when the value may carry untrusted input. */
  isTainted: (node: AstNode | null, ancestors: readonly AstNode[], options?: TaintOptions) => boolean;
  /** The expression a local name was last given (for "does this variable hold SQL text"). */
  initialiser: (name: string, ancestors: readonly AstNode[]) => AstNode | null;
};

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

/** Names bound by a pattern that takes labels from the value: `{ session }` of a request gets none. */
function patternBindings(pattern: AstNode | null): { name: string; serverSide: boolean }[] {
  if (pattern?.type !== 'ObjectPattern') return boundNames(pattern).map((name) => ({ name, serverSide: false }));
  return children(pattern, 'properties').flatMap((property) => {
    const key = identifierName(child(property, 'key'));
    const value = property.type === 'RestElement' ? child(property, 'argument') : child(property, 'value');
    return patternBindings(value).map((binding) => ({ ...binding, serverSide: binding.serverSide || (key !== null && serverSideFields.has(key)) }));
  });
}

/** At most this many parameter labels per value: bundles pass values through hundreds of functions, and summaries only need a few. */
const maxLabels = 48;

const union = (left: Labels, right: Labels): Labels => {
  if (right.size === 0 || right === left) return left;
  if (left.size === 0) return right;
  let merged: Set<string> | null = null;
  for (const label of right) {
    if (left.has(label) || merged?.has(label)) continue;
    if ((merged?.size ?? left.size) >= maxLabels && label !== inputLabel) continue;
    merged ??= new Set(left);
    merged.add(label);
  }
  return merged ?? left;
};

/** Computes the labels of a program to a fixed point: declarations, assignments, loops, callbacks and calls to this file's functions. */
export function analyseTaint(program: AstNode, scope: FileScope, roles: Roles): Taint {
  const declared = new Map<AstNode, Set<string>>([[program, new Set()]]);
  /** The expression a variable holds, for variables given a value once; null once it is reassigned. */
  const initialisers = new Map<string, AstNode | null>();
  const setInitialiser = (key: string, value: AstNode | null): void => {
    initialisers.set(key, initialisers.has(key) && initialisers.get(key) !== value ? null : value);
  };
  walk(program, (node, ancestors) => {
    if (functionTypes.has(node.type)) declared.set(node, new Set(children(node, 'params').flatMap((param) => boundNames(param))));
    else if (node.type === 'VariableDeclarator') {
      const owner = [...ancestors].reverse().find((ancestor) => functionTypes.has(ancestor.type)) ?? program;
      for (const name of boundNames(child(node, 'id'))) declared.get(owner)?.add(name);
    }
  });
  const keyOf = (name: string, ancestors: readonly AstNode[]): string => {
    for (let index = ancestors.length - 1; index >= 0; index -= 1) {
      const node = ancestors[index] as AstNode;
      if (functionTypes.has(node.type) && declared.get(node)?.has(name)) return `${node.start}:${name}`;
    }
    return `${program.start}:${name}`;
  };
  const bindings = new Map<string, Labels>();
  /** Bindings that are parameters: the only objects whose server-side fields are not input. */
  const parameters = new Set<string>();
  const isParameter = (node: AstNode | null, ancestors: readonly AstNode[]): boolean => node?.type === 'Identifier' && parameters.has(keyOf(node.name as string, ancestors));
  const returns = new Map<AstNode, Labels>();
  const add = (key: string, labels: Labels): void => {
    if (labels.size === 0) return;
    const before = bindings.get(key) ?? noLabels;
    const after = union(before, labels);
    if (after !== before) bindings.set(key, after);
  };

  // Parameters of exported functions carry their own label (what their summaries are made of); request parameters carry input.
  const summarised = new Set(scope.exports.values());
  walk(program, (node) => {
    if (!functionTypes.has(node.type)) return;
    const inputs = roles.inputParams.get(node);
    children(node, 'params').forEach((param, index) => {
      const pattern = param.type === 'AssignmentPattern' ? child(param, 'left') : param;
      for (const { names, slot } of parameterSlots(pattern, String(index))) {
        const labels = new Set<string>(summarised.has(node) ? [paramLabel(node, slot)] : []);
        if (inputs?.has(index)) labels.add(inputLabel);
        for (const name of names) {
          add(`${node.start}:${name}`, labels);
          parameters.add(`${node.start}:${name}`);
        }
      }
    });
  });

  const localCallee = (call: AstNode, ancestors: readonly AstNode[]): AstNode | null => {
    const callee = child(call, 'callee');
    const name = identifierName(callee);
    if (name) return scope.localFunctions.get(name) ?? null;
    if (callee?.type === 'MemberExpression' && child(callee, 'object')?.type === 'ThisExpression') {
      const method = identifierName(child(callee, 'property'));
      const owner = [...ancestors].reverse().find((ancestor) => scope.classOf.has(ancestor));
      const cls = owner ? scope.classOf.get(owner) : undefined;
      return method && cls ? scope.classMethods.get(cls)?.get(method) ?? null : null;
    }
    return null;
  };

  const labelsOf = (node: AstNode | null, ancestors: readonly AstNode[], options: TaintOptions = {}): Labels => {
    if (!node) return noLabels;
    switch (node.type) {
      case 'Identifier':
        return bindings.get(keyOf(node.name as string, ancestors)) ?? noLabels;
      case 'MemberExpression': {
        const path = memberPath(node);
        const source = path !== null && sourcePattern.test(path) ? new Set([inputLabel]) : noLabels;
        const object = child(node, 'object');
        if (object?.type === 'ThisExpression') return source;
        const property = node.computed ? null : identifierName(child(node, 'property'));
        if (property && serverSideFields.has(property) && isParameter(object, ancestors)) return noLabels;
        const objectLabels = labelsOf(object, ancestors, options);
        if (!property || !isParameter(object, ancestors)) return union(source, objectLabels);
        // `options.path` on a parameter is the field `path` of that parameter.
        const fielded = new Set<string>();
        for (const label of objectLabels) fielded.add(/^p\d+:\d+$/.test(label) ? `${label}.${property}` : label);
        return union(source, fielded);
      }
      case 'TemplateLiteral':
        return children(node, 'expressions').reduce((labels, expression) => union(labels, labelsOf(expression, ancestors, options)), noLabels);
      case 'BinaryExpression':
        return node.operator === '+' ? union(labelsOf(child(node, 'left'), ancestors, options), labelsOf(child(node, 'right'), ancestors, options)) : noLabels;
      case 'LogicalExpression':
        return union(labelsOf(child(node, 'left'), ancestors, options), labelsOf(child(node, 'right'), ancestors, options));
      case 'ConditionalExpression':
        return union(labelsOf(child(node, 'consequent'), ancestors, options), labelsOf(child(node, 'alternate'), ancestors, options));
      case 'AssignmentExpression':
        return labelsOf(child(node, 'right'), ancestors, options);
      case 'AwaitExpression': case 'TSAsExpression': case 'TSNonNullExpression': case 'ParenthesizedExpression': case 'ChainExpression': case 'TSSatisfiesExpression': case 'TSTypeAssertion':
        return labelsOf(child(node, 'expression') ?? child(node, 'argument'), ancestors, options);
      case 'SpreadElement':
        return labelsOf(child(node, 'argument'), ancestors, options);
      case 'ArrayExpression':
        return children(node, 'elements').reduce((labels, element) => union(labels, labelsOf(element, ancestors, options)), noLabels);
      case 'ObjectExpression':
        return children(node, 'properties').reduce((labels, property) => union(labels, labelsOf(property.type === 'SpreadElement' ? property : child(property, 'value'), ancestors, options)), noLabels);
      case 'CallExpression': case 'NewExpression': {
        const callee = calleePath(node) ?? '';
        if ((sanitizers.test(callee) && !parsers.test(callee)) || (options.coercionSanitizes && coercions.test(callee))) return noLabels;
        const args = children(node, 'arguments');
        const local = localCallee(node, ancestors);
        if (local) {
          // A function of this file: its return value's labels, with its parameters' labels replaced by the arguments'.
          let labels = noLabels;
          for (const label of returns.get(local) ?? noLabels) {
            const parameter = parseParamLabel(label);
            if (parameter?.fn === local.start) labels = union(labels, labelsOf(argumentAt(args, parameter.slot).node, ancestors, options));
            else labels = union(labels, new Set([label]));
          }
          return labels;
        }
        const calleeNode = child(node, 'callee');
        let labels = calleeNode?.type === 'MemberExpression' ? labelsOf(child(calleeNode, 'object'), ancestors, options) : noLabels;
        for (const argument of args) if (!functionTypes.has(argument.type)) labels = union(labels, labelsOf(argument, ancestors, options));
        return labels;
      }
      default:
        return noLabels;
    }
  };

  const enclosingFunction = (ancestors: readonly AstNode[]): AstNode | undefined => [...ancestors].reverse().find((ancestor) => functionTypes.has(ancestor.type));

  for (let round = 0; round < 8; round += 1) {
    const before = [...bindings.values()].reduce((sum, labels) => sum + labels.size, 0) + [...returns.values()].reduce((sum, labels) => sum + labels.size, 0);
    walk(program, (node, ancestors) => {
      if (node.type === 'VariableDeclarator') {
        const init = child(node, 'init');
        const labels = labelsOf(init, ancestors);
        const id = child(node, 'id');
        if (id?.type === 'Identifier' && round === 0) setInitialiser(keyOf(id.name as string, ancestors), init);
        const fromParameter = isParameter(init, ancestors);
        for (const binding of patternBindings(id)) if (!binding.serverSide || !fromParameter) add(keyOf(binding.name, ancestors), labels);
      } else if (node.type === 'AssignmentExpression') {
        const left = child(node, 'left');
        const target = left?.type === 'MemberExpression' ? rootIdentifier(left) : left;
        const labels = labelsOf(child(node, 'right'), ancestors);
        if (target) for (const name of boundNames(target)) add(keyOf(name, ancestors), labels);
        if (left?.type === 'Identifier' && round === 0) setInitialiser(keyOf(left.name as string, ancestors), null);
      } else if (node.type === 'CallExpression' || node.type === 'NewExpression') {
        const args = children(node, 'arguments');
        const local = node.type === 'CallExpression' ? localCallee(node, ancestors) : null;
        if (local) {
          children(local, 'params').forEach((param, index) => {
            const pattern = param.type === 'AssignmentPattern' ? child(param, 'left') : param;
            for (const { names, slot } of parameterSlots(pattern, String(index))) {
              const argument = argumentAt(args, slot);
              const labels = argument.node || argument.whole ? labelsOf(argument.node, ancestors) : labelsOf(args[index] ?? null, ancestors);
              for (const name of names) add(`${local.start}:${name}`, labels);
            }
          });
        }
        // arr.forEach((item) => …): the callback's first parameter gets the collection's labels.
        const callee = child(node, 'callee');
        const callback = args[0];
        if (callee?.type === 'MemberExpression' && callback && functionTypes.has(callback.type) && iterationMethods.test(calleePath(node) ?? '')) {
          const labels = labelsOf(child(callee, 'object'), ancestors);
          const first = children(callback, 'params')[node.type === 'CallExpression' && /\.reduce$/.test(calleePath(node) ?? '') ? 1 : 0];
          if (first) for (const name of boundNames(first)) add(`${callback.start}:${name}`, labels);
        }
      } else if (node.type === 'ForOfStatement' || node.type === 'ForInStatement') {
        const left = child(node, 'left');
        const pattern = left?.type === 'VariableDeclaration' ? child(children(left, 'declarations')[0] as AstNode, 'id') : left;
        const labels = labelsOf(child(node, 'right'), ancestors);
        for (const name of boundNames(pattern)) add(keyOf(name, [...ancestors, node]), labels);
      } else if (node.type === 'ReturnStatement' || (node.type === 'ArrowFunctionExpression' && child(node, 'body')?.type !== 'BlockStatement')) {
        const fn = node.type === 'ReturnStatement' ? enclosingFunction(ancestors) : node;
        const value = node.type === 'ReturnStatement' ? child(node, 'argument') : child(node, 'body');
        if (fn) {
          const labels = labelsOf(value, node.type === 'ReturnStatement' ? ancestors : [...ancestors, node]);
          const beforeReturn = returns.get(fn) ?? noLabels;
          const merged = union(beforeReturn, labels);
          if (merged !== beforeReturn) returns.set(fn, merged);
        }
      }
    });
    const after = [...bindings.values()].reduce((sum, labels) => sum + labels.size, 0) + [...returns.values()].reduce((sum, labels) => sum + labels.size, 0);
    if (after === before) break;
  }

  return {
    labelsOf,
    isTainted: (node, ancestors, options) => labelsOf(node, ancestors, options).has(inputLabel),
    initialiser: (name, ancestors) => initialisers.get(keyOf(name, ancestors)) ?? null,
  };
}

/** The names a parameter binds, by slot: a destructured `{ path, ...rest }` gives `0.path` and `0` (the rest). */
function parameterSlots(pattern: AstNode | null, index: string): { names: string[]; slot: string }[] {
  if (pattern?.type !== 'ObjectPattern') return [{ names: boundNames(pattern), slot: index }];
  return children(pattern, 'properties').map((property) => {
    if (property.type === 'RestElement') return { names: boundNames(child(property, 'argument')), slot: index };
    const key = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
    return { names: boundNames(child(property, 'value')), slot: key && !property.computed ? `${index}.${key}` : index };
  });
}

function rootIdentifier(node: AstNode): AstNode | null {
  let current: AstNode | null = node;
  while (current?.type === 'MemberExpression') current = child(current, 'object');
  return current?.type === 'Identifier' ? current : null;
}
