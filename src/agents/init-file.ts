// /init's starting AGENTS.md, written offline from /analyze-project's findings: stack, commands, layout, conventions.
import { installCommand, isTestFile, projectName, runCommand } from '../capabilities/documentation/facts.js';
import type { PlanDraft } from '../capabilities/plan-draft.js';
import type { ProjectContext } from '../project/context.js';

/** The scripts named for each command an agent needs, in order of preference. */
const commandScripts: readonly [string, readonly string[]][] = [
  ['Build', ['build', 'compile']],
  ['Test', ['test', 'test:unit', 'tests']],
  ['Lint', ['lint', 'lint:check', 'eslint']],
  ['Type-check', ['typecheck', 'type-check', 'check-types', 'tsc', 'types']],
  ['Format', ['format', 'format:check', 'prettier']],
  ['Start in development', ['dev', 'start:dev', 'develop', 'serve', 'start']],
];

const lifecycleScripts = new Set(['prepare', 'preinstall', 'install', 'postinstall', 'prepublish', 'prepublishOnly', 'prepack', 'postpack']);

const notCode = new Set(['JSON', 'YAML', 'Markdown', 'Other']);

const shorten = (command: string): string => (command.length > 90 ? `${command.slice(0, 89)}…` : command).replace(/`/g, "'");

const list = (items: readonly string[], none: string): string => (items.length ? items.join(', ') : none);

function languagesLine(context: ProjectContext): string {
  // Data and prose files are not what the code is written in.
  const counted = Object.entries(context.languages).filter(([language, count]) => count > 0 && !notCode.has(language)).sort(([, a], [, b]) => b - a).slice(0, 4);
  return list(counted.map(([language, count]) => `${language} (${count} file${count === 1 ? '' : 's'})`), 'none detected');
}

function stackSection(context: ProjectContext): string[] {
  return [
    '## Stack',
    '',
    `- Languages: ${languagesLine(context)}`,
    `- Package manager: ${context.packageManager ?? 'none detected'}`,
    `- Frameworks: ${list(context.frameworks, 'none detected')}`,
    `- Tests: ${list(context.testRunners, 'no test runner detected')}`,
    ...(context.orm.length ? [`- Database: ${context.orm.join(', ')}`] : []),
    ...(context.theming.length ? [`- Styling: ${context.theming.join(', ')}`] : []),
  ];
}

function commandsSection(context: ProjectContext): string[] {
  const scripts = context.packageJson?.scripts ?? {};
  const used = new Set<string>();
  const lines = commandScripts.flatMap(([label, names]) => {
    const name = names.find((candidate) => scripts[candidate] !== undefined);
    if (name === undefined) return [];
    used.add(name);
    return [`- ${label}: \`${runCommand(context, name)}\` (runs \`${shorten(scripts[name] ?? '')}\`)`];
  });
  // Hooks npm runs by itself (pre<x>/post<x> of another script, install-time ones) are not commands to run.
  const hook = (name: string) => lifecycleScripts.has(name) || (/^(pre|post)./.test(name) && scripts[name.replace(/^(pre|post)/, '')] !== undefined);
  const others = Object.keys(scripts).filter((name) => !used.has(name) && !hook(name)).slice(0, 12);
  const missing = commandScripts.slice(0, 3).filter(([, names]) => !names.some((name) => scripts[name] !== undefined)).map(([label]) => label.toLowerCase());
  return [
    '## Commands',
    '',
    `- Install: \`${installCommand(context)}\``,
    ...lines,
    ...(others.length ? [`- Other scripts: ${others.map((name) => `\`${runCommand(context, name)}\``).join(', ')}`] : []),
    ...(missing.length ? ['', `No script was found to ${missing.join(' or ')}; say here how it is done.`] : []),
    '',
    'Run the tests and the linter before calling a change finished.',
  ];
}

function layoutSection(context: ProjectContext): string[] {
  const counts = new Map<string, number>();
  for (const path of Object.keys(context.files)) {
    const top = path.includes('/') ? `${path.split('/')[0]}/` : null;
    if (top && !top.startsWith('.')) counts.set(top, (counts.get(top) ?? 0) + 1);
  }
  const folders = [...counts.entries()].sort(([, a], [, b]) => b - a).slice(0, 8);
  if (folders.length === 0) return [];
  return ['## Layout', '', ...folders.map(([folder, count]) => `- \`${folder}\`: ${count} file${count === 1 ? '' : 's'}`)];
}

/** Where the tests live and how they are named, from the test files themselves. */
function testsLine(context: ProjectContext): string | null {
  const tests = Object.keys(context.files).filter(isTestFile);
  if (tests.length === 0) return null;
  const folders = new Map<string, number>();
  const suffixes = new Map<string, number>();
  for (const path of tests) {
    const folder = path.includes('/') ? `${path.split('/').slice(0, -1).slice(0, 2).join('/')}/` : './';
    folders.set(folder, (folders.get(folder) ?? 0) + 1);
    const suffix = /\.(test|spec)\.[cm]?[jt]sx?$/.exec(path)?.[0];
    if (suffix) suffixes.set(suffix, (suffixes.get(suffix) ?? 0) + 1);
  }
  const top = (map: Map<string, number>) => [...map.entries()].sort(([, a], [, b]) => b - a)[0]?.[0];
  const suffix = top(suffixes);
  return `- Test files: ${tests.length} test file${tests.length === 1 ? '' : 's'}, mostly under \`${top(folders)}\`${suffix ? `, named \`*${suffix}\`` : ''}`;
}

function conventionsSection(context: ProjectContext): string[] {
  const { style } = context;
  const indent = style.indent.kind === 'tab' ? 'tabs' : `${style.indent.size} spaces`;
  const source = (key: 'indent' | 'quotes' | 'semicolons') => (style.sources[key] && style.sources[key] !== 'sampled' && style.sources[key] !== 'default' ? ` (from ${style.sources[key]})` : '');
  const modules = { esm: 'ES modules (import/export)', commonjs: 'CommonJS (require/module.exports)', mixed: 'both ES modules and CommonJS' }[style.importStyle];
  const tests = testsLine(context);
  return [
    '## Conventions',
    '',
    `- Indentation: ${indent}${source('indent')}; ${style.quotes} quotes${source('quotes')}; ${style.semicolons ? 'semicolons' : 'no semicolons'}${source('semicolons')}`,
    `- File names: ${style.fileNaming}; functions and variables: ${style.identifierNaming}`,
    `- Modules: ${modules}`,
    ...(tests ? [tests] : []),
    '- Match the existing code: reuse its helpers, frameworks and test style rather than adding new ones.',
  ];
}

/** The starting AGENTS.md as a one-step plan (nothing is written before approval). */
export function draftAgentsFile(context: ProjectContext): PlanDraft {
  const content = [
    '# AGENTS.md',
    '',
    `Instructions for AI coding agents working on ${projectName(context)}. Written by cadre's /init from the project's own files`
      + ' (package.json, configuration, code style); correct it and add what the code cannot say.',
    '',
    ...stackSection(context),
    '',
    ...commandsSection(context),
    '',
    ...layoutSection(context).flatMap((line, index, all) => (index === all.length - 1 ? [line, ''] : [line])),
    ...conventionsSection(context),
    '',
  ].join('\n');
  return {
    title: 'Write a starting AGENTS.md',
    steps: [{ action: 'add-docs', path: 'AGENTS.md', summary: 'Stack, commands to build, test and lint, layout and conventions found by /analyze-project', content }],
  };
}
