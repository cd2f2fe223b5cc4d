// What the names of one file refer to: imported modules (ESM and require), local functions and class methods, injected services, and what the file exports.
import { type AstNode, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';

/** A binding that comes from another module: `module` as written in the import, `name` the export ('default', a name, or '*' for the module object). */
export type ImportRef = { module: string; name: string };

/** A callable of another module, as the caller names it: the import specifier and the export key (`getProduct`, `default`, `UsersService.find`). */
export type CallTarget = { module: string; key: string };

export const functionTypes = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

export type FileScope = {
  imports: Map<string, ImportRef>;
  /** Functions callable by a plain name in this file. */
  localFunctions: Map<string, AstNode>;
  /** Methods of each class, by name (for `this.method()`). */
  classMethods: Map<AstNode, Map<string, AstNode>>;
  /** The declared type name of each class's fields (constructor injection, typed fields): `users` → `UsersService`. */
  fieldTypes: Map<AstNode, Map<string, string>>;
  /** Export key → the function it names. */
  exports: Map<string, AstNode>;
  /** The class a method belongs to. */
  classOf: Map<AstNode, AstNode>;
  /** Local names made by calling an import (`const { doubleCsrfProtection } = doubleCsrf()` → csrf-csrf). */
  madeBy: Map<string, string>;
};

const classTypes = new Set(['ClassDeclaration', 'ClassExpression']);

export function buildScope(program: AstNode): FileScope {
  const scope: FileScope = { imports: new Map(), localFunctions: new Map(), classMethods: new Map(), fieldTypes: new Map(), exports: new Map(), classOf: new Map(), madeBy: new Map() };
  const objects = new Map<string, AstNode>();
  const classesByName = new Map<string, AstNode>();
  walk(program, (node) => {
    if (node.type === 'ImportDeclaration') {
      const module = staticString(child(node, 'source'));
      if (!module) return false;
      for (const specifier of children(node, 'specifiers')) {
        const local = identifierName(child(specifier, 'local'));
        if (!local) continue;
        const name = specifier.type === 'ImportDefaultSpecifier' ? 'default' : specifier.type === 'ImportNamespaceSpecifier' ? '*' : identifierName(child(specifier, 'imported')) ?? staticString(child(specifier, 'imported')) ?? local;
        scope.imports.set(local, { module, name });
      }
      return false;
    }
    if (node.type === 'VariableDeclarator') {
      const id = child(node, 'id');
      const init = unwrap(child(node, 'init'));
      const required = requiredModule(init);
      if (required && id?.type === 'Identifier') scope.imports.set(id.name as string, required);
      else if (required && id?.type === 'ObjectPattern') {
        for (const property of children(id, 'properties')) {
          const key = identifierName(child(property, 'key'));
          const local = identifierName(child(property, 'value'));
          if (key && local) scope.imports.set(local, { module: required.module, name: key });
        }
      }
      const maker = init?.type === 'CallExpression' ? memberPath(child(init, 'callee'))?.split('.')[0] : undefined;
      if (maker) for (const local of boundLocalNames(id)) scope.madeBy.set(local, maker);
      const name = identifierName(id);
      if (name && init && functionTypes.has(init.type)) scope.localFunctions.set(name, init);
      if (name && init?.type === 'ObjectExpression') objects.set(name, init);
      if (name && init && classTypes.has(init.type)) classesByName.set(name, init);
    } else if (node.type === 'FunctionDeclaration') {
      const name = identifierName(child(node, 'id'));
      if (name) scope.localFunctions.set(name, node);
    } else if (classTypes.has(node.type)) {
      const name = identifierName(child(node, 'id'));
      if (name) classesByName.set(name, node);
      collectClass(node, scope);
    }
    return undefined;
  });
  collectExports(program, scope, objects, classesByName);
  return scope;
}

function boundLocalNames(pattern: AstNode | null): string[] {
  if (pattern?.type === 'Identifier') return [pattern.name as string];
  if (pattern?.type === 'ObjectPattern') return children(pattern, 'properties').flatMap((property) => boundLocalNames(child(property, 'value')));
  return [];
}

/** The module a local name comes from: an import, or a value an import's function made. */
export function moduleOfName(scope: FileScope, name: string): string | null {
  const imported = scope.imports.get(name);
  if (imported) return imported.module;
  const maker = scope.madeBy.get(name);
  return maker && maker !== name ? scope.imports.get(maker)?.module ?? null : null;
}

function unwrap(node: AstNode | null): AstNode | null {
  let current = node;
  while (current && (current.type === 'AwaitExpression' || current.type === 'TSAsExpression' || current.type === 'ParenthesizedExpression' || current.type === 'TSNonNullExpression')) {
    current = child(current, current.type === 'AwaitExpression' ? 'argument' : 'expression');
  }
  return current;
}

/** `require('m')`, `require('m').name`, `await import('m')`. */
function requiredModule(init: AstNode | null): ImportRef | null {
  if (!init) return null;
  if (init.type === 'CallExpression' && identifierName(child(init, 'callee')) === 'require') {
    const module = staticString(children(init, 'arguments')[0] ?? null);
    return module ? { module, name: '*' } : null;
  }
  if (init.type === 'ImportExpression') {
    const module = staticString(child(init, 'source'));
    return module ? { module, name: '*' } : null;
  }
  if (init.type === 'MemberExpression' && !init.computed) {
    const inner = requiredModule(unwrap(child(init, 'object')));
    const property = identifierName(child(init, 'property'));
    return inner && property ? { module: inner.module, name: property } : null;
  }
  return null;
}

/** Methods, and fields typed with an imported class (`constructor(private readonly users: UsersService)`, `@Inject() users: UsersService`). */
function collectClass(node: AstNode, scope: FileScope): void {
  const methods = new Map<string, AstNode>();
  const fields = new Map<string, string>();
  const body = child(node, 'body');
  for (const member of body ? children(body, 'body') : []) {
    const key = identifierName(child(member, 'key')) ?? staticString(child(member, 'key'));
    const value = child(member, 'value');
    if (member.type === 'MethodDefinition' && key && value) {
      methods.set(key, value);
      scope.classOf.set(value, node);
      if (key === 'constructor') {
        for (const param of children(value, 'params')) {
          if (param.type !== 'TSParameterProperty') continue;
          const parameter = child(param, 'parameter');
          const type = typeName(parameter);
          const name = identifierName(parameter);
          if (name && type) fields.set(name, type);
        }
      }
    } else if (member.type === 'PropertyDefinition' && key) {
      // `private users: UsersService` or `private providers = new CloudProviders()`.
      const type = typeName(member) ?? (value?.type === 'NewExpression' ? identifierName(child(value, 'callee')) : null);
      if (type) fields.set(key, type);
      if (value && functionTypes.has(value.type)) {
        methods.set(key, value);
        scope.classOf.set(value, node);
      }
    }
  }
  scope.classMethods.set(node, methods);
  scope.fieldTypes.set(node, fields);
}

/** The imported class held by `this.<field>` in a method of `owner` (resolved when asked: imports may follow the class). */
export function injectedImport(scope: FileScope, owner: AstNode, field: string): ImportRef | undefined {
  const type = scope.fieldTypes.get(owner)?.get(field);
  return type ? scope.imports.get(type) : undefined;
}

function typeName(node: AstNode | null): string | null {
  const annotation = node ? child(child(node, 'typeAnnotation') ?? node, 'typeAnnotation') : null;
  if (annotation?.type !== 'TSTypeReference') return null;
  return identifierName(child(annotation, 'typeName'));
}

/** Export keys: `export function f` → f, `export default …` → default, `export class C { m() }` → C.m, `module.exports = { a }` → a, `module.exports = f` → default. */
function collectExports(program: AstNode, scope: FileScope, objects: Map<string, AstNode>, classes: Map<string, AstNode>): void {
  const add = (key: string, value: AstNode | null): void => {
    const target = resolveCallable(value, scope, objects, classes);
    if (!target) return;
    if (functionTypes.has(target.type)) scope.exports.set(key, target);
    else if (classTypes.has(target.type)) for (const [method, fn] of scope.classMethods.get(target) ?? []) scope.exports.set(`${key}.${method}`, fn);
    else if (target.type === 'ObjectExpression') {
      for (const property of children(target, 'properties')) {
        const name = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
        if (name) add(key === 'default' ? name : `${key}.${name}`, child(property, 'value'));
      }
    }
  };
  for (const statement of children(program, 'body')) {
    if (statement.type === 'ExportNamedDeclaration') {
      const declaration = child(statement, 'declaration');
      if (declaration?.type === 'VariableDeclaration') {
        for (const declarator of children(declaration, 'declarations')) {
          const name = identifierName(child(declarator, 'id'));
          if (name) add(name, child(declarator, 'init'));
        }
      } else if (declaration) {
        const name = identifierName(child(declaration, 'id'));
        if (name) add(name, declaration);
      }
      for (const specifier of children(statement, 'specifiers')) {
        const exported = identifierName(child(specifier, 'exported')) ?? staticString(child(specifier, 'exported'));
        if (exported && !child(statement, 'source')) add(exported, child(specifier, 'local'));
      }
    } else if (statement.type === 'ExportDefaultDeclaration') {
      const declaration = child(statement, 'declaration');
      add('default', declaration);
      const name = identifierName(child(declaration ?? statement, 'id'));
      if (name) add(name, declaration);
    } else if (statement.type === 'ExpressionStatement') {
      const expression = child(statement, 'expression');
      if (expression?.type !== 'AssignmentExpression') continue;
      const target = memberPath(child(expression, 'left'));
      if (target === 'module.exports') add('default', child(expression, 'right'));
      else if (target?.startsWith('module.exports.') || target?.startsWith('exports.')) add(target.slice(target.lastIndexOf('.') + 1), child(expression, 'right'));
    }
  }
}

/** The function, class or object literal a value names: through identifiers, and through wrappers like `catchAsync(fn)`. */
function resolveCallable(value: AstNode | null, scope: FileScope, objects: Map<string, AstNode>, classes: Map<string, AstNode>, depth = 0): AstNode | null {
  const node = unwrap(value);
  if (!node || depth > 4) return null;
  if (functionTypes.has(node.type) || classTypes.has(node.type) || node.type === 'ObjectExpression') return node;
  if (node.type === 'Identifier') {
    const name = node.name as string;
    return scope.localFunctions.get(name) ?? classes.get(name) ?? objects.get(name) ?? null;
  }
  if (node.type === 'CallExpression') {
    const wrapped = children(node, 'arguments').find((argument) => functionTypes.has(argument.type) || argument.type === 'Identifier');
    return wrapped ? resolveCallable(wrapped, scope, objects, classes, depth + 1) : null;
  }
  return null;
}
