// The shell parser: the tree-sitter-bash grammar compiled to WASM (vendored), loaded once on first use and shared.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Tree } from 'web-tree-sitter';

let parserPromise: Promise<Parser> | undefined;

/** The vendored grammar (vendor/tree-sitter-bash): two folders up from src/policy under vitest, three from dist/src/policy. */
function grammarFile(): string {
  const candidates = ['../../vendor/tree-sitter-bash/tree-sitter-bash.wasm', '../../../vendor/tree-sitter-bash/tree-sitter-bash.wasm'].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`the bash grammar is missing (looked for ${candidates.join(' and ')}); reinstall cadre`);
  return found;
}

async function loadParser(): Promise<Parser> {
  await Parser.init();
  const bash = await Language.load(grammarFile());
  return new Parser().setLanguage(bash);
}

/** Parses bash source into a syntax tree; the WASM grammar is loaded lazily and cached. */
export async function parseShell(source: string): Promise<Tree> {
  parserPromise ??= loadParser().catch((error: unknown) => {
    parserPromise = undefined;
    throw error;
  });
  const parser = await parserPromise;
  const tree = parser.parse(source);
  if (tree === null) throw new Error('tree-sitter returned no tree');
  return tree;
}
