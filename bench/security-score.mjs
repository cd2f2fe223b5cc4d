// Security scorer: `cadre analyze security` on the deliberately vulnerable apps of ../shared/corpus against the ground truth
// in test/capabilities/ground-truth (derived from each app's own documentation); prints recall and precision per category.
// Usage: node bench/security-score.mjs [--json] [--verbose] [--advisories FILE]   (build cadre first: npm run build)
//   --advisories  an OSV or GitHub advisory export checked besides the bundled snapshot (as `cadre analyze security --advisories`)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, '..', 'shared', 'corpus');
const truthFolder = join(root, 'test', 'capabilities', 'ground-truth');
const projects = ['vulnerable-node', 'brokencrystals'];
export const categories = ['injection', 'path-traversal', 'ssrf', 'open-redirect', 'xxe', 'log-injection', 'xss', 'secrets', 'crypto', 'csrf', 'dependencies'];
export const targets = { recall: 0.6, precision: 0.7 };

function unpack(name) {
  const manifest = JSON.parse(readFileSync(join(corpus, 'MANIFEST.json'), 'utf8'));
  const entry = manifest.projects.find((project) => project.name === name);
  const archive = join(corpus, entry.archive.file);
  const sha = createHash('sha256').update(readFileSync(archive)).digest('hex');
  if (sha !== entry.archive.sha256) throw new Error(`${name}: the archive differs from MANIFEST.json`);
  const folder = mkdtempSync(join(tmpdir(), `cadre-score-${name}-`));
  execFileSync('tar', ['-xzf', archive, '-C', folder]);
  return { root: join(folder, name), dispose: () => rmSync(folder, { recursive: true, force: true }) };
}

const inRange = (finding, at) => finding.file === at.file && finding.line >= at.lines[0] && finding.line <= at.lines[1];

/** Whether a finding is about a ground-truth entry: same category, and a line of its code (or, for dependencies, the package). */
export function matches(finding, entry) {
  if (finding.category !== entry.category) return false;
  if (entry.package) return finding.message.startsWith(`${entry.package}@`);
  return (entry.at ?? []).some((at) => inRange(finding, at));
}

/**
 * Scores one project's findings. An item is found when some finding matches it; a finding is correct when it matches
 * an item or an 'alsoTrue' entry. Dependency findings name an advisory whose affected range holds the version: correct by construction.
 */
export function scoreProject(truth, findings) {
  const perCategory = Object.fromEntries(categories.map((category) => [category, { items: 0, found: 0, findings: 0, correct: 0, missed: [], wrong: [] }]));
  for (const item of truth.items) {
    const score = perCategory[item.category];
    score.items += 1;
    if (findings.some((finding) => matches(finding, item))) score.found += 1;
    else score.missed.push(`${item.id}: ${item.what}`);
  }
  for (const finding of findings) {
    const score = perCategory[finding.category];
    if (!score) continue;
    score.findings += 1;
    const correct = finding.category === 'dependencies' || [...truth.items, ...(truth.alsoTrue ?? [])].some((entry) => matches(finding, entry));
    if (correct) score.correct += 1;
    else score.wrong.push(`${finding.file}:${finding.line} ${finding.ruleId}: ${finding.message}`);
  }
  return perCategory;
}

/** Sums per-category scores and adds recall and precision (null when there is nothing to divide by). */
export function totals(scores) {
  const total = Object.fromEntries(categories.map((category) => {
    const sum = { items: 0, found: 0, findings: 0, correct: 0 };
    for (const score of scores) for (const key of Object.keys(sum)) sum[key] += score[category][key];
    return [category, { ...sum, recall: sum.items ? sum.found / sum.items : null, precision: sum.findings ? sum.correct / sum.findings : null }];
  }));
  return total;
}

async function main() {
  const json = process.argv.includes('--json');
  const verbose = process.argv.includes('--verbose');
  const advisoriesAt = process.argv.indexOf('--advisories');
  const advisoriesFile = advisoriesAt === -1 ? undefined : process.argv[advisoriesAt + 1];
  const built = join(root, 'dist', 'src', 'capabilities', 'analysis', 'index.js');
  if (!existsSync(built)) throw new Error('cadre is not built: run `npm run build` first.');
  const { runAnalysis } = await import(pathToFileURL(built).href);
  const scores = [];
  const perProject = {};
  for (const name of projects) {
    const truth = JSON.parse(readFileSync(join(truthFolder, `${name}.json`), 'utf8'));
    const project = unpack(name);
    try {
      const report = await runAnalysis('security', { cwd: project.root, cache: false, ...(advisoriesFile ? { advisoriesFile } : {}) });
      const score = scoreProject(truth, report.findings);
      scores.push(score);
      perProject[name] = score;
    } finally {
      project.dispose();
    }
  }
  const total = totals(scores);
  if (json) {
    process.stdout.write(`${JSON.stringify({ total, perProject }, null, 2)}\n`);
    return;
  }
  const format = (value) => (value === null ? '  -  ' : value.toFixed(2));
  console.log(`Security scorer: ${projects.join(', ')} against test/capabilities/ground-truth (targets: recall ≥ ${targets.recall}, precision ≥ ${targets.precision})${advisoriesFile ? `; advisories: the bundled snapshot and ${advisoriesFile}` : ''}`);
  console.log('');
  console.log('category       items  found  recall   findings  correct  precision');
  for (const category of categories) {
    const row = total[category];
    const met = row.recall !== null && row.recall >= targets.recall && (row.precision ?? 0) >= targets.precision;
    console.log(`${category.padEnd(14)} ${String(row.items).padStart(5)}  ${String(row.found).padStart(5)}  ${format(row.recall)}   ${String(row.findings).padStart(8)}  ${String(row.correct).padStart(7)}  ${format(row.precision)}     ${met ? 'met' : 'NOT met'}`);
  }
  if (!verbose) return;
  for (const [name, score] of Object.entries(perProject)) {
    for (const category of categories) {
      for (const line of score[category].missed) console.log(`${name} missed  [${category}] ${line}`);
      for (const line of score[category].wrong) console.log(`${name} wrong   [${category}] ${line}`);
    }
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) await main();
