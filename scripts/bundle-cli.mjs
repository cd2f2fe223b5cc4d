// Bundles cadre's start path into dist/cadre.mjs (one file, with a source map): the entry, the command line (commander
// included) and `cadre analyze`'s warm path, so a command answered from cache loads one module instead of ~30. Every
// other module (the prompt, the other commands, the full analysis) stays in dist/src and is imported from there.
// Usage: node scripts/bundle-cli.mjs (after tsc: the bundle imports dist/src).
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'cadre.mjs');
const fromRoot = (path) => relative(root, path).split('\\').join('/');

/** Modules loaded with import() that join the bundle: what `cadre analyze` runs before it answers from its cache. */
const bundledDynamicImports = new Set([
  'src/cli/program.ts', 'src/cli/sink.ts', 'src/cli/analyze-arguments.ts', 'src/capabilities/analysis/present.ts', 'src/store/paths.ts',
]);

/**
 * Modules that hold state or a class other modules test with instanceof: a copy in the bundle beside the one in
 * dist/src would split it in two (a CadreError thrown by dist/src would not be recognised by the bundle's copy), so the
 * bundle imports them from dist/src.
 */
const sharedModules = new Set([
  'src/errors.ts', 'src/cli/process-end.ts', 'src/cli/line-prompt.ts', 'src/project/cache-write.ts', 'src/project/cache-document.ts',
]);

/** Top-level declarations that make a module stateful; a bundled module with one must be listed in sharedModules. */
const statePatterns = [/^(?:export )?let /m, /^(?:export )?var /m, /^(?:export )?(?:abstract )?class /m, /^(?:export )?const \w+ = new (?:Set|Map|WeakMap|WeakSet)(?:<[^>]*>)?\(\)/m, /^(?:export )?const \w+ = randomBytes\(/m];

const startPath = {
  name: 'cadre-start-path',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.startsWith(join(root, 'src'))) return undefined;
      const source = resolve(dirname(args.importer), args.path).replace(/\.js$/, '.ts');
      const name = fromRoot(source);
      const bundled = !sharedModules.has(name) && (args.kind !== 'dynamic-import' || bundledDynamicImports.has(name));
      if (bundled) return { path: source };
      return { path: `./${name.replace(/\.ts$/, '.js')}`, external: true };
    });
    // A bundled module sees the import.meta.url of its twin in dist/src, so that what it finds next to itself
    // (cadre's package.json, its own build's stamp in the analysis cache) is what the unbundled module finds.
    builder.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const name = fromRoot(args.path);
      const state = statePatterns.find((pattern) => pattern.test(source));
      if (state) throw new Error(`${name} holds module state (${state}): list it in sharedModules in scripts/bundle-cli.mjs so that one copy exists.`);
      const twin = JSON.stringify(`./${name.replace(/\.ts$/, '.js')}`);
      return { contents: source.replaceAll('import.meta.url', `new URL(${twin}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

await build({
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // commander is inlined; every other package is imported from node_modules as before.
  packages: 'external',
  plugins: [startPath, { name: 'commander', setup: (builder) => builder.onResolve({ filter: /^commander$/ }, () => ({ path: join(root, 'node_modules', 'commander', 'index.js') })) }],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  // commander is CommonJS: its require() of Node built-ins needs a require in an ES module.
  banner: { js: "import { createRequire as __cadreCreateRequire } from 'node:module'; const require = __cadreCreateRequire(import.meta.url);" },
});
process.stdout.write(`${outfile}\n`);
