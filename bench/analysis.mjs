// Analysis benchmark: `cadre analyze security --json` cold and warm on a large real tree (packages copied from our node_modules)
// against eslint with eslint-plugin-security and eslint-plugin-no-unsanitized on the same files, in the same run.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const cadre = process.env.CADRE_BIN ?? join(root, 'bin', 'cadre.js');
const runs = Number(process.env.BENCH_RUNS ?? 3);
const targets = { coldRatio: 3, warmSeconds: 0.3 };
/** Real code of many shapes: ESM and CommonJS, TypeScript sources, bundles, CLIs, servers, parsers. */
const defaultPackages = [
  'eslint', '@eslint', 'typescript-eslint', '@typescript-eslint', 'xstate', '@xstate', 'zod', 'ai', '@ai-sdk', 'openai', '@anthropic-ai',
  'isomorphic-git', '@octokit', 'dockerode', 'docker-modem', 'ssh2', 'commander', 'jsonwebtoken', 'prompts', 'ws', 'semver', 'diff',
  'vitest', '@vitest', 'vite', 'rollup', 'esbuild', 'ajv', 'espree', 'acorn', 'chai', 'undici-types', 'ignore', 'picomatch', 'esquery', 'debug',
];
const packages = process.env.BENCH_PACKAGES ? process.env.BENCH_PACKAGES.split(',') : defaultPackages;
/** Folder names cadre never indexes (build output, vendored code): renamed in the copy so both tools see the same files. */
const skippedByCadre = new Set(['dist', 'build', 'out', 'coverage', 'vendor', 'bower_components', '.cache', '.next', '.nuxt', '.output', '.turbo']);
const scriptFile = /\.(?:[cm]?[jt]sx?)$/;
const maxFileBytes = 1_000_000;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function copyTree(from, to, counts) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const source = join(from, entry.name);
    if (entry.isDirectory()) {
      copyTree(source, join(to, skippedByCadre.has(entry.name) ? `${entry.name}_` : entry.name), counts);
    } else if (entry.isFile() && scriptFile.test(entry.name) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.min.js')) {
      const size = statSync(source).size;
      if (size > maxFileBytes) continue;
      mkdirSync(to, { recursive: true });
      cpSync(source, join(to, entry.name));
      counts.files += 1;
      counts.bytes += size;
    }
  }
}

function buildTree(folder) {
  const counts = { files: 0, bytes: 0 };
  for (const name of packages) {
    const source = join(root, 'node_modules', name);
    if (existsSync(source)) copyTree(source, join(folder, 'packages', name), counts);
  }
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'bench-tree', private: true }));
  return counts;
}

function eslintConfig(folder) {
  const url = (name) => pathToFileURL(require.resolve(name)).href;
  const file = join(folder, 'eslint.bench.config.mjs');
  writeFileSync(file, [
    `import security from '${url('eslint-plugin-security')}';`,
    `import noUnsanitized from '${url('eslint-plugin-no-unsanitized')}';`,
    `import tseslint from '${url('typescript-eslint')}';`,
    'export default [',
    '  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" } },',
    '  { files: ["**/*.{js,mjs,jsx}"], languageOptions: { ecmaVersion: "latest", sourceType: "module", parserOptions: { ecmaFeatures: { jsx: true } } } },',
    '  { files: ["**/*.cjs"], languageOptions: { ecmaVersion: "latest", sourceType: "commonjs" } },',
    '  { files: ["**/*.{ts,tsx,mts,cts}"], languageOptions: { parser: tseslint.parser } },',
    '  { ignores: ["**/*.d.ts", "**/*.min.js", ".cadre/**"] },',
    '  security.configs.recommended,',
    '  noUnsanitized.configs.recommended,',
    '];',
    '',
  ].join('\n'));
  return file;
}

function timed(argv, cwd) {
  const start = process.hrtime.bigint();
  const run = spawnSync(argv[0], argv.slice(1), { cwd, encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' } });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, run };
}

function cadreRun(tree) {
  const { seconds, run } = timed([process.execPath, cadre, '--json', 'analyze', 'security'], tree);
  if (run.status !== 0) throw new Error(`cadre analyze security exited ${run.status}: ${run.stderr || run.stdout.slice(-2000)}`);
  const report = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.type === 'output.result' && event.data?.kind === 'security')?.data;
  if (!report) throw new Error('cadre printed no security report');
  return { seconds, report };
}

function eslintRun(tree, config, cache) {
  const output = join(tree, '..', 'eslint-report.json');
  const argv = [process.execPath, join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '-c', config, '--no-warn-ignored', '-f', 'json', '-o', output, ...(cache ? ['--cache', '--cache-location', join(tree, '..', '.eslintcache')] : []), 'packages'];
  const { seconds, run } = timed(argv, tree);
  if (run.status !== 0 && run.status !== 1) throw new Error(`eslint exited ${run.status}: ${run.stderr.slice(-2000)}`);
  const results = JSON.parse(readFileSync(output, 'utf8'));
  const messages = results.reduce((sum, file) => sum + file.messages.filter((message) => message.ruleId).length, 0);
  const fatal = results.reduce((sum, file) => sum + file.messages.filter((message) => message.fatal).length, 0);
  return { seconds, files: results.length, messages, fatal };
}

if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
  console.error('cadre is not built: run `npm run build` first.');
  process.exit(1);
}
const workspace = mkdtempSync(join(tmpdir(), 'cadre-bench-analysis-'));
try {
  const tree = join(workspace, 'tree');
  const counts = buildTree(tree);
  const config = eslintConfig(workspace);
  console.log(`Tree: ${counts.files} script files, ${(counts.bytes / 1e6).toFixed(1)} MB, from ${packages.length} packages in node_modules (${relative(root, tree) || tree}).`);

  // Interleaved, so that whatever else the machine is doing weighs on both tools alike.
  const cold = [];
  const warm = [];
  const warmInProcess = [];
  const eslintCold = [];
  let report;
  let eslint;
  for (let index = 0; index < runs; index += 1) {
    rmSync(join(tree, '.cadre'), { recursive: true, force: true });
    const first = cadreRun(tree);
    cold.push(first.seconds);
    report = first.report;
    const again = cadreRun(tree);
    warm.push(again.seconds);
    warmInProcess.push(again.report.durationMs / 1000);
    if (again.report.filesReused !== again.report.filesAnalyzed) throw new Error(`warm run re-read ${again.report.filesAnalyzed - again.report.filesReused} files`);
    eslint = eslintRun(tree, config, false);
    eslintCold.push(eslint.seconds);
    console.log(`run ${index + 1}/${runs}: cadre cold ${first.seconds.toFixed(2)} s, warm ${again.seconds.toFixed(2)} s; eslint cold ${eslint.seconds.toFixed(2)} s`);
  }
  rmSync(join(workspace, '.eslintcache'), { force: true });
  eslintRun(tree, config, true);
  const eslintWarm = [];
  for (let index = 0; index < runs; index += 1) eslintWarm.push(eslintRun(tree, config, true).seconds);

  const ratio = median(eslintCold) / median(cold);
  const counts4 = report.counts;
  console.log('');
  console.log(`cadre analyze security   cold ${median(cold).toFixed(2)} s   warm ${median(warm).toFixed(2)} s (in-process ${median(warmInProcess).toFixed(2)} s)   files ${report.filesAnalyzed}   findings ${report.findings.length} (Critical ${counts4.Critical}, High ${counts4.High}, Medium ${counts4.Medium}, Low ${counts4.Low})`);
  console.log(`eslint + security plugins cold ${median(eslintCold).toFixed(2)} s   warm (--cache) ${median(eslintWarm).toFixed(2)} s   files ${eslint.files}   messages ${eslint.messages} (parse errors ${eslint.fatal})`);
  console.log('');
  console.log(`Cold ratio (eslint / cadre): ${ratio.toFixed(2)}×   target ≥ ${targets.coldRatio}×   ${ratio >= targets.coldRatio ? 'met' : 'NOT met'}`);
  console.log(`Warm cadre re-run: ${median(warm).toFixed(2)} s   target ≤ ${targets.warmSeconds} s   ${median(warm) <= targets.warmSeconds ? 'met' : 'NOT met'}`);
  console.log(`Medians of ${runs} run(s) each; cold = no .cadre cache / no eslint cache.`);
} finally {
  if (!process.env.BENCH_KEEP) rmSync(workspace, { recursive: true, force: true });
}
