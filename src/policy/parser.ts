// The shell parser: tree-sitter-bash compiled to WASM, loaded once on first use and shared.
import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

let parserPromise: Promise<Parser> | undefined;

async function loadParser(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
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
