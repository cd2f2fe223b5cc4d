// Analysis benchmark: `cadre analyze security --json` cold and warm on a tree of real apps (the twelve projects of
// ../shared/corpus, ~120k lines), against oxlint with every rule and plugin on, on the same tree, in the same run.
// Targets (issue 14): cold ≤ 3 × oxlint's time, warm ≤ 0.15 s. BENCH_ESLINT=1 adds eslint with the security plugins.
// cadre runs with --offline: the advisories come from its bundled snapshot, not from npm's registry, so the figures measure
// the analysis (as oxlint's do) and no network; a registry's answer time would add to a cold run only (cached for a day).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const cadre = process.env.CADRE_BIN ?? join(root, 'bin', 'cadre.js');
const corpus = join(root, '..', 'shared', 'corpus');
const runs = Number(process.env.BENCH_RUNS ?? 5);
const targets = { coldRatio: 3, warmSeconds: 0.15 };
const oxlintArgs = ['-W', 'all', '-W', 'nursery', '--import-plugin', '--react-plugin', '--jsdoc-plugin', '--jest-plugin', '--vitest-plugin', '--jsx-a11y-plugin', '--nextjs-plugin', '--react-perf-plugin', '--promise-plugin', '--node-plugin', '--vue-plugin'];
const scriptFile = /\.(?:[cm]?[jt]sx?|vue)$/;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
}

/** Every corpus project, checksum-checked, unpacked side by side under one root. */
function buildTree(folder) {
  const manifest = JSON.parse(readFileSync(join(corpus, 'MANIFEST.json'), 'utf8'));
  for (const project of manifest.projects) {
    const archive = join(corpus, project.archive.file);
    if (createHash('sha256').update(readFileSync(archive)).digest('hex') !== project.archive.sha256) throw new Error(`${project.name}: the archive differs from MANIFEST.json`);
    execFileSync('tar', ['-xzf', archive, '-C', folder]);
  }
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'bench-tree', private: true }));
  return manifest.projects.length;
}

function countLines(folder) {
  let files = 0;
  let lines = 0;
  const visit = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') visit(path);
      else if (entry.isFile() && scriptFile.test(entry.name) && !entry.name.endsWith('.min.js') && statSync(path).size < 1_000_000) {
        files += 1;
        lines += readFileSync(path, 'utf8').split('\n').length;
      }
    }
  };
  visit(folder);
  return { files, lines };
}

/** CPU seconds (user + system) used by this process's finished children, where Linux says (/proc, in clock ticks of 10 ms); else null. */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

function timed(argv, cwd) {
  const cpuBefore = childrenCpuSeconds();
  const start = process.hrtime.bigint();
  const run = spawnSync(argv[0], argv.slice(1), { cwd, encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' } });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpuAfter = childrenCpuSeconds();
  return { seconds, cpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, run };
}

function loadLine() {
  return `load average ${loadavg().map((value) => value.toFixed(2)).join(' ')} on ${availableParallelism()} cores`;
}

function cadreRun(tree) {
  const { seconds, cpuSeconds, run } = timed([process.execPath, cadre, '--json', 'analyze', 'security', '--offline'], tree);
  if (run.status !== 0) throw new Error(`cadre analyze security exited ${run.status}: ${run.stderr || run.stdout.slice(-2000)}`);
  const report = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.type === 'output.result' && event.data?.kind === 'security')?.data;
  if (!report) throw new Error('cadre printed no security report');
  return { seconds, cpuSeconds, report };
}

function oxlintRun(tree) {
  const binary = join(root, 'node_modules', '.bin', 'oxlint');
  if (!existsSync(binary)) throw new Error('oxlint is not installed: run npm install (it is a devDependency).');
  const { seconds, run } = timed([binary, ...oxlintArgs, '.'], tree);
  if (run.status !== 0 && run.status !== 1) throw new Error(`oxlint exited ${run.status}: ${run.stderr.slice(-2000)}`);
  const summary = /Finished in [^\n]*/.exec(run.stdout)?.[0] ?? '';
  return { seconds, summary };
}

function eslintRun(tree, workspace) {
  const url = (name) => pathToFileURL(require.resolve(name)).href;
  const config = join(workspace, 'eslint.bench.config.mjs');
  writeFileSync(config, [
    `import security from '${url('eslint-plugin-security')}';`,
    `import noUnsanitized from '${url('eslint-plugin-no-unsanitized')}';`,
    `import tseslint from '${url('typescript-eslint')}';`,
    'export default [',
    '  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" } },',
    '  { files: ["**/*.{js,mjs,jsx}"], languageOptions: { ecmaVersion: "latest", sourceType: "module", parserOptions: { ecmaFeatures: { jsx: true } } } },',
    '  { files: ["**/*.{ts,tsx,mts,cts}"], languageOptions: { parser: tseslint.parser, parserOptions: { ecmaFeatures: { jsx: true } } } },',
    '  { ignores: ["**/*.d.ts", "**/*.min.js", "**/node_modules/**", ".cadre/**"] },',
    '  security.configs.recommended,',
    '  noUnsanitized.configs.recommended,',
    '];',
    '',
  ].join('\n'));
  const { seconds, run } = timed([process.execPath, join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '-c', config, '--no-warn-ignored', '-f', 'json', '-o', join(workspace, 'eslint.json'), '.'], tree);
  if (run.status !== 0 && run.status !== 1) throw new Error(`eslint exited ${run.status}: ${run.stderr.slice(-2000)}`);
  return seconds;
}

if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
  console.error('cadre is not built: run `npm run build` first.');
  process.exit(1);
}
const workspace = mkdtempSync(join(tmpdir(), 'cadre-bench-analysis-'));
try {
  const tree = join(workspace, 'tree');
  execFileSync('mkdir', ['-p', tree]);
  const projects = buildTree(tree);
  const size = countLines(tree);
  console.log(`Tree: the ${projects} corpus projects, ${size.files} script files, ${size.lines.toLocaleString('en')} lines (${tree}).`);
  console.log(`Machine at the start: ${loadLine()}.`);

  // Interleaved, so that whatever else the machine is doing weighs on both tools alike.
  const cold = [];
  const warm = [];
  const oxlint = [];
  const eslint = [];
  const warmCpu = [];
  const nodeStart = [];
  const nodeStartCpu = [];
  let report;
  let oxlintSummary = '';
  for (let index = 0; index < runs; index += 1) {
    rmSync(join(tree, '.cadre'), { recursive: true, force: true });
    const first = cadreRun(tree);
    cold.push(first.seconds);
    report = first.report;
    const again = cadreRun(tree);
    warm.push(again.seconds);
    if (again.cpuSeconds !== null) warmCpu.push(again.cpuSeconds);
    if (again.report.filesReused !== again.report.filesAnalyzed) throw new Error(`the warm run re-read ${again.report.filesAnalyzed - again.report.filesReused} files`);
    if (JSON.stringify(again.report.findings) !== JSON.stringify(first.report.findings)) throw new Error('the warm run answered differently from the cold run');
    // What any Node.js command costs on this machine right now: the floor under the warm figure.
    const bare = timed([process.execPath, '-e', ''], tree);
    nodeStart.push(bare.seconds);
    if (bare.cpuSeconds !== null) nodeStartCpu.push(bare.cpuSeconds);
    const lint = oxlintRun(tree);
    oxlint.push(lint.seconds);
    oxlintSummary = lint.summary;
    if (process.env.BENCH_ESLINT === '1') eslint.push(eslintRun(tree, workspace));
    console.log(`run ${index + 1}/${runs}: cadre cold ${first.seconds.toFixed(2)} s, warm ${again.seconds.toFixed(3)} s (node alone ${nodeStart.at(-1).toFixed(3)} s); oxlint ${lint.seconds.toFixed(2)} s${eslint.length ? `; eslint ${eslint.at(-1).toFixed(2)} s` : ''}`);
  }

  const ratio = median(cold) / median(oxlint);
  console.log('');
  console.log(`cadre analyze security   cold ${median(cold).toFixed(2)} s   warm ${median(warm).toFixed(3)} s   files ${report.filesAnalyzed}   findings ${report.findings.length} (Critical ${report.counts.Critical}, High ${report.counts.High}, Medium ${report.counts.Medium}, Low ${report.counts.Low})`);
  console.log(`oxlint, every rule and plugin   ${median(oxlint).toFixed(2)} s   (${oxlintSummary})`);
  if (eslint.length) console.log(`eslint + security plugins   ${median(eslint).toFixed(2)} s`);
  console.log('');
  console.log(`Cold: cadre / oxlint = ${ratio.toFixed(2)}×   target ≤ ${targets.coldRatio}×   ${ratio <= targets.coldRatio ? 'met' : 'NOT met'}`);
  console.log(`Warm: ${median(warm).toFixed(3)} s   target ≤ ${targets.warmSeconds} s   ${median(warm) <= targets.warmSeconds ? 'met' : 'NOT met'}`
    + `   (CPU ${warmCpu.length ? `${median(warmCpu).toFixed(2)} s` : 'not measured'}; \`node -e ''\` alone ${median(nodeStart).toFixed(3)} s${nodeStartCpu.length ? `, CPU ${median(nodeStartCpu).toFixed(2)} s` : ''})`);
  // Each warm run less the bare Node start measured right after it: the part of the warm figure that is cadre's own.
  console.log(`Warm less \`node -e ''\`: ${median(warm.map((seconds, index) => seconds - nodeStart[index])).toFixed(3)} s (median of the per-run differences)`);
  console.log(`Medians of ${runs} run(s) each; cold = no .cadre cache. The machine's load weighs on every figure alike.`);
  console.log(`Machine at the end: ${loadLine()}.`);
} finally {
  if (!process.env.BENCH_KEEP) rmSync(workspace, { recursive: true, force: true });
}
