// Bundles the vm-agent runner and the forwarder into dist/runner (one .mjs each, plus the two tree-sitter .wasm files),
// the folder cadre mounts read-only at /opt/cadre in a sandbox container. Usage: node scripts/bundle-runner.mjs [--outdir DIR]
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = resolve(values.outdir ?? join(root, 'dist', 'runner'));

// The policy's parser finds the bash grammar in vendor/; in the bundle it sits next to the .mjs file.
const grammarLookup = 'await Language.load(grammarFile())';
const bundledGrammar = {
  name: 'bundled-bash-grammar',
  setup(builder) {
    builder.onLoad({ filter: /src[\\/]policy[\\/]parser\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(grammarLookup)) throw new Error(`${args.path} no longer contains ${grammarLookup}; update scripts/bundle-runner.mjs`);
      return { contents: source.replace(grammarLookup, "await Language.load(decodeURIComponent(new URL('./tree-sitter-bash.wasm', import.meta.url).pathname))"), loader: 'ts' };
    });
  },
};

await mkdir(outdir, { recursive: true });
await build({
  entryPoints: { 'cadre-runner': join(root, 'src/runner/main.ts'), 'cadre-forwarder': join(root, 'src/runner/forwarder-main.ts') },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  // The sandbox image's Node (Debian bookworm) is 18.
  target: 'node18',
  legalComments: 'none',
  minify: true,
  keepNames: true,
  logLevel: 'warning',
  // Some bundled CommonJS code calls require() for Node built-ins, which an ES module lacks.
  banner: { js: "import { createRequire as __cadreCreateRequire } from 'node:module'; const require = __cadreCreateRequire(import.meta.url);" },
  plugins: [bundledGrammar],
});
await copyFile(join(root, 'vendor', 'tree-sitter-bash', 'tree-sitter-bash.wasm'), join(outdir, 'tree-sitter-bash.wasm'));
await copyFile(require.resolve('web-tree-sitter/web-tree-sitter.wasm'), join(outdir, 'web-tree-sitter.wasm'));
process.stdout.write(`${outdir}\n`);
