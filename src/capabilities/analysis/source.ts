// Turns a file's text into a SourceFile, and builds findings at nodes and offsets.
import { type AstNode, isParsablePath, lineLocator, parseSource } from '../../project/ast.js';
import { inlineScriptText, isViewPath } from './inline-scripts.js';
import type { Finding, RuleMeta, Severity, SourceFile } from './types.js';

export function loadSourceFile(path: string, text: string): SourceFile {
  const position = lineLocator(text);
  let parsed = null;
  let parseError: string | null = null;
  if (isParsablePath(path)) {
    try {
      parsed = parseSource(path, text);
      parseError = parsed?.errors[0] ?? null;
    } catch (error) {
      parsed = null;
      parseError = error instanceof Error ? error.message : String(error);
    }
  } else if (isViewPath(path)) {
    // A view's inline scripts run in the browser: parsed as one script at their offsets. Templating leaves them
    // unparsable at places (a tag inside an expression); the parser recovers, and the view is still judged as a template.
    const scripts = inlineScriptText(path, text);
    try {
      parsed = scripts === null ? null : parseSource(`${path}.js`, scripts);
    } catch {
      parsed = null;
    }
  }
  const offset = parsed?.offset ?? 0;
  return { path, text, parsed, parseError, position, at: (node) => position(node.start + offset) };
}

export type FindingDraft = { severity: Severity; message: string; fix: string };

export function findingAt(file: SourceFile, where: AstNode | number, rule: RuleMeta, draft: FindingDraft): Finding {
  const { line, column } = typeof where === 'number' ? file.position(where) : file.at(where);
  return { file: file.path, line, column, ruleId: rule.id, category: rule.category, ...draft };
}
