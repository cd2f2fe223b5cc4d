// Bundles cadre's own code into dist/cli/ (esbuild, code splitting, source maps): the entry dist/cli/cadre.mjs holds what
// every command needs, and each module cadre loads with import() starts a chunk of its own, loaded only when that import
// runs (the prompt, the app, the vm side, the agents, the analyses). A command loads ~45 files instead of ~260 ES modules
// (cadre's ~120 and zod's ~100), which Node 20 resolves, reads, compiles and links one by one. One module graph holds all
// of cadre's code, so each module (its state, its classes) exists once. npm packages are imported from node_modules as
// before, except the few in `inlined`.
// Usage: node scripts/bundle-cli.mjs (after tsc: each bundled module's import.meta.url is its twin's in dist/src).
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
const fromRoot = (path) => relative(root, path).split('\\').join('/');
/** `@scope/name` or `name` of a bare import. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * Packages bundled into the chunks, each loaded by every command: commander (CommonJS), zod (~100 ES modules; a package
 * that brings its own zod, like the AI SDK, loads that one when used: zod 4's schemas and errors are read across copies),
 * xstate and diff. The rest are loaded from node_modules only where cadre imports them.
 */
const inlined = ['commander', 'zod', 'xstate', 'diff'];

const ownCode = {
  name: 'cadre-own-code',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!/^(?:src|machines)\//.test(fromRoot(args.importer))) return undefined;
      return { path: resolve(dirname(args.importer), args.path).replace(/\.js$/, '.ts') };
    });
    // zod's translations of its messages (z.locales: 366 KB in ~50 files, Hebrew to Chinese) are not bundled: cadre speaks
    // English (zod's own default, which zod imports directly) and never reads z.locales.
    builder.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) => (/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'cadre-unused' } : undefined));
    builder.onLoad({ filter: /.*/, namespace: 'cadre-unused' }, () => ({ contents: 'export {};', loader: 'js' }));
    // Every other package stays an import from node_modules.
    builder.onResolve({ filter: /^[^./]/ }, (args) => (inlined.includes(packageOf(args.path)) ? undefined : { path: args.path, external: true }));
    // A bundled module sees the import.meta.url of its twin in dist/src (or dist/machines), so that what it finds next to
    // itself (cadre's package.json, the vendored grammar, its own build's stamp in the analysis cache) is what tsc's output finds.
    builder.onLoad({ filter: /[\\/](?:src|machines)[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const twin = JSON.stringify(`../${fromRoot(args.path).replace(/\.ts$/, '.js')}`);
      return { contents: source.replaceAll('import.meta.url', `new URL(${twin}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

const { outputFiles } = await build({
  entryPoints: { cadre: join(root, 'src', 'cli', 'main.ts') },
  outdir,
  write: false,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [ownCode],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  // commander is CommonJS: its require() of Node built-ins needs a require in an ES module.
  banner: { js: "import { createRequire as __cadreCreateRequire } from 'node:module'; const require = __cadreCreateRequire(import.meta.url);" },
});
// The chunks are named by their content. Each file is written whole (a temporary file renamed), the chunks before the
// entry that imports them, and the chunks of earlier builds stay a while: a cadre started before this build (a prompt left
// open, a test's process) still finds the chunks it loads later, and one started during it finds a whole build.
await mkdir(outdir, { recursive: true });
const entryLast = (file) => (basename(file.path).startsWith('cadre.') ? 1 : 0);
for (const file of [...outputFiles].sort((a, b) => entryLast(a) - entryLast(b))) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  await writeFile(temporary, file.contents);
  await rename(temporary, file.path);
}
const written = new Set(outputFiles.map((file) => basename(file.path)));
const keepMs = 60 * 60 * 1000;
for (const name of await readdir(outdir)) {
  if (written.has(name)) continue;
  const path = join(outdir, name);
  const info = await stat(path).catch(() => null);
  if (info && Date.now() - info.mtimeMs > keepMs) await rm(path, { force: true });
}
// The single-file bundle of earlier builds.
await rm(join(root, 'dist', 'cadre.mjs'), { force: true });
await rm(join(root, 'dist', 'cadre.mjs.map'), { force: true });
process.stdout.write(`${join(outdir, 'cadre.mjs')}\n`);
