// The heavy half of an analysis, loaded only when some file changed: the parser, the rules, and the per-file pass.
import { bracketDepth, isParsablePath, maxParseDepth } from '../../project/ast.js';
import { extractFacts } from '../../project/facts.js';
import type { ListedFile } from '../../project/files.js';
import type { CachedFile } from './cache.js';
import { kinds } from './kinds.js';
import { loadSourceFile } from './source.js';
import type { AnalysisKind } from './types.js';
import { isGenerated, scriptTagLibraries, thirdPartyScript, vendoredLibrary } from './vendored.js';

export { kinds };

/** Analyses one file's text for a kind: findings, facts for the project stage, and why it was only partly read. */
export function analyseOne(kind: AnalysisKind, item: ListedFile, text: string, hash: string): CachedFile {
  // A copied library is not the project's code: no findings in it, and its lines do not count; its version is checked as a dependency.
  const library = vendoredLibrary(item.path, text);
  if (library) return { size: item.size, mtimeMs: item.mtimeMs, hash, findings: [], facts: null, lines: 0, vendored: [library], excluded: 'vendored' };
  // Generated code is not analysed either, but its imports still count (it uses the project's packages and files).
  if (isGenerated(item.path, text)) {
    const generated = loadSourceFile(item.path, text);
    return { size: item.size, mtimeMs: item.mtimeMs, hash, findings: [], facts: generated.parsed ? extractFacts(generated.parsed, text) : null, lines: 0, excluded: 'generated' };
  }
  const lines = text.split('\n').length;
  // Deeper than the parser can take (it would crash the process): said, and left out, so one file never loses the report.
  if (isParsablePath(item.path) && bracketDepth(text, maxParseDepth) > maxParseDepth) {
    return { size: item.size, mtimeMs: item.mtimeMs, hash, findings: [], facts: null, lines, warning: `nests brackets more than ${maxParseDepth} deep (generated code?), past what the parser can take; it was not analysed.` };
  }
  // Copies and minified builds of other people's scripts say nothing of the project's quality or speed (security still reads them).
  const copied = kind === 'security' ? null : thirdPartyScript(item.path, text);
  if (copied) return { size: item.size, mtimeMs: item.mtimeMs, hash, findings: [], facts: null, lines: 0, excluded: copied };
  const file = loadSourceFile(item.path, text);
  try {
    const { findings, fingerprints, security } = kinds[kind].analyseFile(file);
    const loaded = /\.(?:html?|ejs|hbs|handlebars|njk|twig|php)$/.test(item.path) ? scriptTagLibraries(text, file.position) : [];
    const facts = file.parsed ? extractFacts(file.parsed, text) : null;
    const warning = file.parseError ? `does not parse (${file.parseError}); analysed what could be read.` : undefined;
    return { size: item.size, mtimeMs: item.mtimeMs, hash, findings, facts, lines, ...(fingerprints ? { fingerprints } : {}), ...(security ? { security } : {}), ...(loaded.length > 0 ? { vendored: loaded } : {}), ...(warning ? { warning } : {}) };
  } catch (error) {
    // Generated code (one expression of thousands of terms, arrays nested thousands deep) exhausts the stack of the tree walks.
    if (!(error instanceof RangeError && /call stack/i.test(error.message))) throw error;
    return { size: item.size, mtimeMs: item.mtimeMs, hash, findings: [], facts: null, lines, warning: 'is nested too deeply for the analysers (generated code?); it was left out.' };
  }
}
