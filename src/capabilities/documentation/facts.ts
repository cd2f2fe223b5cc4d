// What the documentation is written from: the context's scripts, environment variables, HTTP routes and exported symbols.
import type { ProjectContext } from '../../project/context.js';
import type { SymbolFact } from '../../project/facts.js';

export type RouteDoc = { method: string; path: string; file: string; line: number };
export type ExportDoc = SymbolFact & { file: string };

/** Environment variables the code reads, each with the files that read it. */
export function envVarsOf(context: ProjectContext): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [file, entry] of Object.entries(context.files)) {
    if (isTestFile(file)) continue;
    for (const name of entry.facts?.envVars ?? []) found.set(name, [...(found.get(name) ?? []), file]);
  }
  return new Map([...found.entries()].sort(([left], [right]) => left.localeCompare(right)));
}

export function exportsOf(context: ProjectContext): ExportDoc[] {
  return Object.entries(context.files)
    .filter(([file]) => !isTestFile(file) && !file.endsWith('.d.ts'))
    .flatMap(([file, entry]) => (entry.facts?.symbols ?? []).filter((symbol) => symbol.exported).map((symbol) => ({ ...symbol, file })));
}

export function isTestFile(path: string): boolean {
  return /(?:^|\/)(?:test|tests|__tests__|e2e)\/|\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path);
}

export function projectName(context: ProjectContext): string {
  return context.packageJson?.name ?? context.root.split(/[\\/]/).filter(Boolean).at(-1) ?? 'project';
}

export function runCommand(context: ProjectContext, script: string): string {
  switch (context.packageManager) {
    case 'yarn': return `yarn ${script}`;
    case 'pnpm': return `pnpm ${script}`;
    case 'bun': return `bun run ${script}`;
    default: return script === 'test' || script === 'start' ? `npm ${script}` : `npm run ${script}`;
  }
}

export function installCommand(context: ProjectContext): string {
  return context.packageManager === 'yarn' ? 'yarn install' : context.packageManager === 'pnpm' ? 'pnpm install' : context.packageManager === 'bun' ? 'bun install' : 'npm install';
}

/** A one-line explanation of a package.json script from what it runs. */
export function describeScript(name: string, command: string): string {
  const known: [RegExp, string][] = [
    [/\bvitest\b(?!.*\brun\b)|\bjest\b.*--watch|\bwatch\b/, 'runs in watch mode'],
    [/\b(?:vitest run|jest|mocha|node --test|playwright test|cypress run)\b/, 'runs the tests'],
    [/\btsc\b.*--noEmit/, 'type-checks the code'],
    [/\beslint\b/, 'lints the code'],
    [/\bprettier\b/, 'formats the code'],
    [/\bprisma migrate\b/, 'applies database migrations'],
    [/\bknex migrate\b/, 'applies database migrations'],
    [/\bvite build\b|\bnext build\b|\btsc\b|\bwebpack\b|\brollup\b|\besbuild\b/, 'builds for production'],
    [/\bvite\b|\bnext dev\b|\btsx watch\b|\bnodemon\b/, 'starts a development server with reload'],
    [/\bnode\b/, 'starts the app'],
  ];
  if (name === 'test') return 'runs the tests';
  return known.find(([pattern]) => pattern.test(command))?.[1] ?? `runs \`${command}\``;
}
