// Members added to a class of an existing file (a controller's route, a service's method), printed as the project's formatter would print them inside the class.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, indentationAt, parseExisting, startOf } from './ast-edit.js';
import { existsError } from './conventions.js';
import { addImportEdits, type ImportSpec } from './imports.js';
import { printSource } from './printer.js';

/** A method appended to the exported class of an existing file, with the imports it needs. */
export async function addMember(context: ProjectContext, path: string, text: string, member: string, imports: ImportSpec[]): Promise<PlanStep> {
  const parsed = parseExisting(path, text);
  let body: AstNode | null = null;
  walk(parsed.program, (node) => {
    if (!body && node.type === 'ClassBody') body = node;
    return !body;
  });
  const last = body ? children(body as AstNode, 'body').at(-1) : undefined;
  if (!last) throw existsError(`${path} has no class to add the route to.`);
  const name = /^\s*(?:async\s+)?(\w+)\(/m.exec(member.split('\n').find((line) => !line.startsWith('@')) ?? '')?.[1];
  if (name && children(body as unknown as AstNode, 'body').some((candidate) => identifierName(child(candidate, 'key')) === name)) throw existsError(`${path} already has a ${name} method.`);
  const indent = indentationAt(text, startOf(parsed, last));
  const printed = await printClassMember(path, member, context, indent);
  const content = applyEdits(path, text, [afterStatement(text, parsed, last, printed), ...await addImportEdits(path, text, parsed, imports, { ...context.style, commonjs: context.style.importStyle === 'commonjs' })], `as a method of the class in ${path}`);
  return { action: 'modify-file', path, summary: `${name ?? 'a method'} added to ${posix.basename(path)}`, content };
}

/** A class member printed by wrapping it in a class (Prettier formats members only inside one), then unwrapped and indented. */
async function printClassMember(path: string, member: string, context: ProjectContext, indent: string): Promise<string> {
  const printed = await printSource(path, `class Wrapper {\n${member}\n}\n`, context.style);
  const inner = printed.split('\n').slice(1, -2);
  const unit = /^\s+/.exec(inner.find((line) => line.trim()) ?? '')?.[0] ?? '';
  return `${inner.map((line) => (line ? `${indent}${line.slice(unit.length)}` : line)).join('\n')}\n`;
}

