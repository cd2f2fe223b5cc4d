// Reads configuration written as code without running it: the literal value of an expression, and what a module exports by default.
import { type AstNode, child, children, identifierName, parseSource, staticString } from './ast.js';

export type StaticValue = string | number | boolean | null | StaticValue[] | { [key: string]: StaticValue };

/** The literal value of an expression (objects, arrays, strings, numbers, booleans, null), or undefined when any part needs running code. */
export function staticValue(node: AstNode | null, scope: ReadonlyMap<string, AstNode> = new Map(), depth = 0): StaticValue | undefined {
  if (!node || depth > 20) return undefined;
  const text = staticString(node);
  if (text !== null) return text;
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'number' || typeof node.value === 'boolean' || node.value === null ? node.value as StaticValue : undefined;
    case 'UnaryExpression': {
      const value = staticValue(child(node, 'argument'), scope, depth + 1);
      if (node.operator === '-' && typeof value === 'number') return -value;
      if (node.operator === '!' && value !== undefined) return !value;
      return undefined;
    }
    case 'ParenthesizedExpression': case 'TSAsExpression': case 'TSSatisfiesExpression': case 'TSNonNullExpression': case 'TSTypeAssertion':
      return staticValue(child(node, 'expression'), scope, depth + 1);
    case 'Identifier': {
      const bound = scope.get(node.name as string);
      return bound ? staticValue(bound, scope, depth + 1) : undefined;
    }
    case 'ArrayExpression': {
      const items: StaticValue[] = [];
      for (const element of children(node, 'elements')) {
        const value = staticValue(element, scope, depth + 1);
        if (value !== undefined) items.push(value);
      }
      return items;
    }
    case 'ObjectExpression': {
      const object: Record<string, StaticValue> = {};
      for (const property of children(node, 'properties')) {
        if (property.type === 'SpreadElement') {
          const spread = staticValue(child(property, 'argument'), scope, depth + 1);
          if (spread && typeof spread === 'object' && !Array.isArray(spread)) Object.assign(object, spread);
          continue;
        }
        if (property.computed) continue;
        const key = child(property, 'key');
        const name = identifierName(key) ?? staticString(key);
        const value = staticValue(child(property, 'value'), scope, depth + 1);
        if (name !== null && value !== undefined) object[name] = value;
      }
      return object;
    }
    default:
      return undefined;
  }
}

/** The top-level `const`/`let` initialisers of a program, by name (what identifiers in a config refer to). */
export function topLevelBindings(program: AstNode): Map<string, AstNode> {
  const bindings = new Map<string, AstNode>();
  for (const statement of children(program, 'body')) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? child(statement, 'declaration') : statement;
    if (declaration?.type !== 'VariableDeclaration') continue;
    for (const declarator of children(declaration, 'declarations')) {
      const name = identifierName(child(declarator, 'id'));
      const init = child(declarator, 'init');
      if (name && init) bindings.set(name, init);
    }
  }
  return bindings;
}

/** The default export of a module (`export default …` or `module.exports = …`) as a literal value, when it is one. */
export function defaultExportValue(path: string, text: string): StaticValue | undefined {
  let parsed;
  try {
    parsed = parseSource(path, text);
  } catch {
    return undefined;
  }
  if (!parsed) return undefined;
  const scope = topLevelBindings(parsed.program);
  for (const statement of children(parsed.program, 'body')) {
    if (statement.type === 'ExportDefaultDeclaration') return staticValue(child(statement, 'declaration'), scope);
    const expression = statement.type === 'ExpressionStatement' ? child(statement, 'expression') : null;
    if (expression?.type === 'AssignmentExpression') {
      const left = child(expression, 'left');
      if (left?.type === 'MemberExpression' && identifierName(child(left, 'object')) === 'module' && identifierName(child(left, 'property')) === 'exports') {
        return staticValue(child(expression, 'right'), scope);
      }
    }
  }
  return undefined;
}

/** JSON with comments and trailing commas (tsconfig.json, .eslintrc, jsconfig.json); null when it does not parse. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"') {
      const start = index;
      index += 1;
      while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
      out += text.slice(start, index + 1);
      index += 1;
    } else if (char === '/' && text[index + 1] === '/') {
      while (index < text.length && text[index] !== '\n') index += 1;
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      index = end === -1 ? text.length : end + 2;
    } else {
      // A trailing comma (only blanks or comments before the closing bracket) is dropped.
      if (char !== ',' || !/^(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*[}\]]/.test(text.slice(index + 1))) out += char;
      index += 1;
    }
  }
  try {
    return JSON.parse(out);
  } catch {
    return null;
  }
}
