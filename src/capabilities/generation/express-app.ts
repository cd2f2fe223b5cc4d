// Where a server app (Express, Fastify, Koa) is created and set up, read from the syntax tree: its file, instance name, the statement list that configures it, and where new routes go.
import { type AstNode, type ParsedSource, child, children, identifierName, staticString, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import { parseExisting, statementsOf } from './ast-edit.js';
import { isConventionSource } from './conventions.js';

export type ExpressApp = {
  path: string;
  text: string;
  parsed: ParsedSource;
  /** The app's variable (`app`). */
  instance: string;
  /** The statements of the scope that creates and configures the app (the module, or the factory function's body). */
  statements: AstNode[];
  /** Statements of that scope registering a route directly on the app (`app.get('/x', …)`). */
  routes: AstNode[];
};

const httpMethods = /^(?:get|post|put|patch|delete|all)$/;

/** The file that creates the app (`express()`, `Fastify()`, `new Koa()`), shortest path first, runtime source only. */
export async function findExpressApp(context: ProjectContext, read: (path: string) => Promise<string | null>, module = 'express'): Promise<ExpressApp | null> {
  const candidates = Object.entries(context.files)
    .filter(([path, entry]) => isConventionSource(context, path) && (entry.facts?.imports.some((fact) => fact.source === module) ?? false))
    .map(([path]) => path)
    .sort((left, right) => left.length - right.length);
  for (const path of candidates) {
    const text = await read(path);
    if (text === null) continue;
    const parsed = parseExisting(path, text);
    const expressName = moduleBinding(parsed.program, module);
    if (!expressName) continue;
    const found = appDeclaration(parsed.program, expressName);
    if (!found) continue;
    const statements = statementsOf(found.scope);
    const routes = statements.filter((statement) => routeCall(statement, found.instance) !== null);
    return { path, text, parsed, instance: found.instance, statements, routes };
  }
  return null;
}

/** The local name of a module's default export (`import express from 'express'`, `const express = require('express')`). */
function moduleBinding(program: AstNode, module: string): string | null {
  for (const statement of children(program, 'body')) {
    if (statement.type === 'ImportDeclaration' && staticString(child(statement, 'source')) === module) {
      const specifier = children(statement, 'specifiers').find((candidate) => candidate.type === 'ImportDefaultSpecifier' || candidate.type === 'ImportNamespaceSpecifier');
      if (specifier) return identifierName(child(specifier, 'local'));
    }
    if (statement.type === 'VariableDeclaration') {
      for (const declarator of children(statement, 'declarations')) {
        const init = child(declarator, 'init');
        if (init?.type === 'CallExpression' && identifierName(child(init, 'callee')) === 'require' && staticString(children(init, 'arguments')[0] ?? null) === module) {
          return identifierName(child(declarator, 'id'));
        }
      }
    }
  }
  return null;
}

/** `const app = express()` (or `new Koa()`) anywhere in the module: the variable and the scope (program or function) whose statements set it up. */
function appDeclaration(program: AstNode, creator: string): { instance: string; scope: AstNode } | null {
  let found: { instance: string; scope: AstNode } | null = null;
  walk(program, (node, ancestors) => {
    if (found) return false;
    if (node.type !== 'VariableDeclarator') return;
    let init = child(node, 'init');
    if (init?.type === 'AwaitExpression') init = child(init, 'argument');
    const instance = identifierName(child(node, 'id'));
    if ((init?.type !== 'CallExpression' && init?.type !== 'NewExpression') || identifierName(child(init, 'callee')) !== creator || !instance) return;
    const scope = [...ancestors].reverse().find((ancestor) => ancestor.type === 'Program' || ancestor.type === 'FunctionDeclaration' || ancestor.type === 'FunctionExpression' || ancestor.type === 'ArrowFunctionExpression');
    if (scope) found = { instance, scope };
  });
  return found;
}

/** The call of a statement like `app.get('/path', …)` on the instance, or null. */
export function routeCall(statement: AstNode, instance: string): AstNode | null {
  if (statement.type !== 'ExpressionStatement') return null;
  const call = child(statement, 'expression');
  if (call?.type !== 'CallExpression') return null;
  const callee = child(call, 'callee');
  if (callee?.type !== 'MemberExpression' || identifierName(child(callee, 'object')) !== instance) return null;
  const method = identifierName(child(callee, 'property'));
  return method && httpMethods.test(method) && staticString(children(call, 'arguments')[0] ?? null)?.startsWith('/') ? call : null;
}

/** Whether a statement mounts an error handler (`app.use(errorHandler)`, `app.use((err, req, res, next) => …)`). */
function isErrorHandler(statement: AstNode, instance: string): boolean {
  if (statement.type !== 'ExpressionStatement') return false;
  const call = child(statement, 'expression');
  const callee = call?.type === 'CallExpression' ? child(call, 'callee') : null;
  if (callee?.type !== 'MemberExpression' || identifierName(child(callee, 'object')) !== instance || identifierName(child(callee, 'property')) !== 'use') return false;
  const last = children(call as AstNode, 'arguments').at(-1);
  if (!last) return false;
  if (last.type === 'ArrowFunctionExpression' || last.type === 'FunctionExpression') return children(last, 'params').length === 4;
  return /error/i.test(identifierName(last) ?? '');
}

/** Whether a statement ends the set-up: `app.listen(…)` (also assigned), `export default app`, `module.exports = app`, `return app`. */
function endsSetUp(statement: AstNode, instance: string): boolean {
  let ends = false;
  walk(statement, (node) => {
    if (ends) return false;
    if (node.type === 'MemberExpression' && identifierName(child(node, 'object')) === instance && identifierName(child(node, 'property')) === 'listen') ends = true;
    if ((node.type === 'ReturnStatement' || node.type === 'ExportDefaultDeclaration') && identifierName(child(node, node.type === 'ReturnStatement' ? 'argument' : 'declaration')) === instance) ends = true;
    if (node.type === 'AssignmentExpression' && identifierName(child(node, 'right')) === instance) ends = true;
    return node.type !== 'FunctionExpression' && node.type !== 'ArrowFunctionExpression';
  });
  return ends;
}

/**
 * The statement new set-up goes after: the last route (or, for `use` registrations, the last `app.use`), never past the error
 * handler or the statement that starts the server; the app's declaration when there is nothing else.
 */
export function anchorStatement(app: ExpressApp, kind: 'route' | 'use' | 'register'): AstNode {
  const stop = app.statements.findIndex((statement) => isErrorHandler(statement, app.instance) || endsSetUp(statement, app.instance));
  const allowed = stop === -1 ? app.statements : app.statements.slice(0, stop);
  const declaration = allowed.findIndex((statement) => statement.type === 'VariableDeclaration' && children(statement, 'declarations').some((declarator) => identifierName(child(declarator, 'id')) === app.instance));
  const matches = (statement: AstNode): boolean => (kind === 'route' ? routeCall(statement, app.instance) !== null : usesCall(statement, app.instance, kind === 'use' ? 'use' : 'register'));
  const index = allowed.map(matches).lastIndexOf(true);
  const chosen = index !== -1 ? index : allowed.map((statement) => usesCall(statement, app.instance, kind === 'register' ? 'register' : 'use')).lastIndexOf(true);
  return allowed[chosen !== -1 ? chosen : Math.max(declaration, 0)] ?? allowed.at(-1) ?? (app.statements[0] as AstNode);
}

function usesCall(statement: AstNode, instance: string, method: 'use' | 'register'): boolean {
  if (statement.type !== 'ExpressionStatement' || isErrorHandler(statement, instance)) return false;
  let call = child(statement, 'expression');
  if (call?.type === 'AwaitExpression') call = child(call, 'argument');
  const callee = call?.type === 'CallExpression' ? child(call, 'callee') : null;
  return callee?.type === 'MemberExpression' && identifierName(child(callee, 'object')) === instance && identifierName(child(callee, 'property')) === method;
}
