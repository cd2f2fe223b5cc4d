// Edits of existing source files through their syntax tree: text goes in only at statement, element or property boundaries, and the result must parse.
import { CadreError, exitCodes } from '../../errors.js';
import { type AstNode, type ParsedSource, child, children, identifierName, parseSource } from '../../project/ast.js';

/** Text put in at `offset`, replacing `remove` characters there (none by default). */
export type Edit = { offset: number; text: string; remove?: number };

/** The parse of a file, or null when the parser throws. */
function tryParse(path: string, text: string): ParsedSource | null {
  try {
    return parseSource(path, text);
  } catch {
    return null;
  }
}

/** Parses an existing file; one that does not parse is refused (cadre never edits code it cannot read). */
export function parseExisting(path: string, text: string): ParsedSource {
  const parsed = tryParse(path, text);
  if (!parsed || parsed.errors.length > 0) {
    throw new CadreError('generation.unparsable-file', `${path} does not parse${parsed?.errors[0] ? ` (${parsed.errors[0]})` : ''}, so cadre will not edit it.`, {
      remedy: `Fix the syntax error in ${path} first, then run the task again.`,
      exitCode: exitCodes.usage,
    });
  }
  return parsed;
}

/** Applies insertions (offsets into the original text), then checks the result still parses: a failed edit is a refusal, never a broken file. */
export function applyEdits(path: string, text: string, edits: Edit[], where: string): string {
  let out = text;
  for (const edit of [...edits].sort((left, right) => right.offset - left.offset)) out = `${out.slice(0, edit.offset)}${edit.text}${out.slice(edit.offset + (edit.remove ?? 0))}`;
  const parsed = tryParse(path, out);
  if (!parsed || parsed.errors.length > 0) {
    throw new CadreError('generation.edit-refused', `cadre could not add its change to ${path} without breaking the file.`, {
      remedy: `Add it by hand ${where}; the rest of the plan does not depend on how.`,
      exitCode: exitCodes.usage,
    });
  }
  return out;
}

/** The offset of the start of the line holding `offset`. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset just past the end of the line holding `offset` (after its newline), or the end of the text. */
export function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end + 1;
}

/** The indentation of the line holding `offset`. */
export function indentationAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? '';
}

/** The file offset of a node (script blocks of components start after `<script>`). */
export const startOf = (parsed: ParsedSource, node: AstNode): number => node.start + parsed.offset;
export const endOf = (parsed: ParsedSource, node: AstNode): number => node.end + parsed.offset;

/** Statements (already printed, indented and newline-terminated) after `node`, at the end of its last line; by default after a blank line. */
export function afterStatement(text: string, parsed: ParsedSource, node: AstNode, printed: string, options: { blankLine?: boolean } = {}): Edit {
  const end = lineEnd(text, endOf(parsed, node));
  return { offset: end, text: `${end === text.length && !text.endsWith('\n') ? '\n' : ''}${options.blankLine === false ? '' : '\n'}${printed}` };
}

/** Statements before `node`, at the start of its line, followed by a blank line. */
export function beforeStatement(text: string, parsed: ParsedSource, node: AstNode, printed: string): Edit {
  return { offset: lineStart(text, startOf(parsed, node)), text: `${printed}\n` };
}

/** An element appended to an array literal, on its own line when the array spans lines (keeping its trailing-comma habit). */
export function appendElement(text: string, parsed: ParsedSource, array: AstNode, element: string): Edit {
  const elements = children(array, 'elements');
  const last = elements.at(-1);
  const close = endOf(parsed, array) - 1;
  if (!last) return { offset: close, text: element };
  const multiline = text.slice(startOf(parsed, array), close).includes('\n');
  const between = text.slice(endOf(parsed, last), close);
  const trailing = /^\s*,/.test(between);
  if (!multiline) return { offset: endOf(parsed, last), text: `, ${element}` };
  const indent = indentationAt(text, startOf(parsed, last));
  const indented = element.split('\n').map((line, index) => (index === 0 || !line ? line : `${indent}${line}`)).join('\n');
  return { offset: endOf(parsed, last) + (trailing ? between.indexOf(',') + 1 : 0), text: `${trailing ? '' : ','}\n${indent}${indented}${trailing ? ',' : ''}` };
}

/** A property appended to an object literal (same habits as `appendElement`). */
export function appendProperty(text: string, parsed: ParsedSource, object: AstNode, property: string): Edit {
  return appendElement(text, parsed, { ...object, elements: children(object, 'properties') } as AstNode, property);
}

/** The top-level statements of a program, or the body statements of a function or block. */
export function statementsOf(node: AstNode): AstNode[] {
  if (node.type === 'Program' || node.type === 'BlockStatement' || node.type === 'StaticBlock') return children(node, 'body');
  const body = child(node, 'body');
  return body?.type === 'BlockStatement' ? children(body, 'body') : [];
}

/** `object.method(...)` as an expression statement: the call node, or null. */
export function methodCallStatement(statement: AstNode, object: string, methods: RegExp): AstNode | null {
  if (statement.type !== 'ExpressionStatement') return null;
  let call = child(statement, 'expression');
  if (call?.type === 'AwaitExpression') call = child(call, 'argument');
  if (call?.type !== 'CallExpression') return null;
  const callee = child(call, 'callee');
  if (callee?.type !== 'MemberExpression') return null;
  const name = identifierName(child(callee, 'property'));
  return identifierName(child(callee, 'object')) === object && name !== null && methods.test(name) ? call : null;
}
