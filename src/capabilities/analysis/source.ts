// Turns a file's text into a SourceFile, and builds findings at nodes and offsets.
import { type AstNode, isParsablePath, lineLocator, parseSource } from '../../project/ast.js';
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
  }
  const offset = parsed?.offset ?? 0;
  return { path, text, parsed, parseError, position, at: (node) => position(node.start + offset) };
}

export type FindingDraft = { severity: Severity; message: string; fix: string };

export function findingAt(file: SourceFile, where: AstNode | number, rule: RuleMeta, draft: FindingDraft): Finding {
  const { line, column } = typeof where === 'number' ? file.position(where) : file.at(where);
  return { file: file.path, line, column, ruleId: rule.id, category: rule.category, ...draft };
}

/** Test, fixture and story files: some rules (secrets, smells) treat them differently. */
export function isTestPath(path: string): boolean {
  return /(?:^|\/)(?:__tests__|__mocks__|tests?|[\w-]*[-_]tests?|integrationtests?|unittests?|spec|fixtures?|e2e|cypress|mocks?|stories|\.storybook)\/|\.(?:test|spec|stories|story|e2e|mock)\.[cm]?[jt]sx?$/.test(path);
}

/** Code that does not run in the app: tests and their fixtures, stories, examples, documentation and code-fix snippets. Null for runtime code. */
export function nonRuntimeKind(path: string): string | null {
  if (isTestPath(path)) return 'test code';
  if (/(?:^|\/)(?:scripts?|seeds?|seeders?|migrations?)\/|(?:^|\/)seed\.[cm]?[jt]s$/.test(path)) return 'script';
  if (/(?:^|\/)(?:examples?|samples?|demos?|docs?|snippets?|codefixes|code-fixes)\//i.test(path) || /\.md$/.test(path)) return 'example code';
  return null;
}
