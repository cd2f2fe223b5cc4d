// README with setup instructions: what the project is, its stack, install, environment variables the code reads, scripts, routes.
import type { ProjectContext } from '../../project/context.js';
import { describeScript, envVarsOf, installCommand, projectName, type RouteDoc, runCommand } from './facts.js';

export function readmeMarkdown(context: ProjectContext, envExample: Map<string, string>, routes: RouteDoc[], apiPath = 'docs/API.md'): string {
  const name = projectName(context);
  const scripts = Object.entries(context.packageJson?.scripts ?? {});
  const env = envVarsOf(context);
  const stack = [...context.frameworks, ...context.orm, ...context.theming].join(', ');
  const lines = [`# ${name}`, ''];
  if (context.packageJson?.description) lines.push(context.packageJson.description, '');
  if (stack) lines.push(`Built with ${stack}${context.testRunners.length > 0 ? `; tested with ${context.testRunners.join(', ')}` : ''}.`, '');
  lines.push('## Setup', '');
  const node = context.packageJson?.engines?.node;
  lines.push(`1. Install Node.js${node ? ` ${node}` : ''}.`, `2. Install the dependencies: \`${installCommand(context)}\`.`);
  let step = 3;
  if (env.size > 0) {
    lines.push(`${step}. Set the environment variables below${envExample.size > 0 ? ' (copy `.env.example` to `.env` and edit it)' : ''}.`);
    step += 1;
  }
  if (context.orm.includes('Prisma')) {
    lines.push(`${step}. Create the database tables: ${scripts.some(([, command]) => /prisma migrate/.test(command)) ? `\`${runCommand(context, scripts.find(([, command]) => /prisma migrate/.test(command))?.[0] ?? '')}\`` : '`npx prisma migrate dev`'}.`);
    step += 1;
  }
  const start = ['dev', 'start', 'serve'].find((script) => context.packageJson?.scripts?.[script]);
  if (start) lines.push(`${step}. Start it: \`${runCommand(context, start)}\`.`);
  lines.push('');
  if (env.size > 0) {
    lines.push('## Environment variables', '', '| Variable | Read in | Example |', '| --- | --- | --- |');
    for (const [variable, files] of env) lines.push(`| \`${variable}\` | ${files.map((file) => `\`${file}\``).join(', ')} | ${envExample.has(variable) ? `\`${envExample.get(variable)}\`` : ''} |`);
    lines.push('');
  }
  if (scripts.length > 0) {
    lines.push('## Scripts', '', '| Command | What it does |', '| --- | --- |');
    for (const [script, command] of scripts) lines.push(`| \`${runCommand(context, script)}\` | ${describeScript(script, command)} |`);
    lines.push('');
  }
  if (routes.length > 0) {
    lines.push('## HTTP API', '', `See [${apiPath}](${apiPath}) for the details.`, '', '| Method | Path |', '| --- | --- |');
    for (const route of routes) lines.push(`| ${route.method} | \`${route.path}\` |`);
    lines.push('');
  }
  lines.push('## Project layout', '', ...layout(context), '');
  return `${lines.join('\n')}`;
}

function layout(context: ProjectContext): string[] {
  const folders = new Map<string, number>();
  for (const path of Object.keys(context.files)) {
    const parts = path.split('/');
    const folder = parts.length > 2 ? `${parts[0]}/${parts[1]}/` : parts.length === 2 ? `${parts[0]}/` : null;
    if (folder) folders.set(folder, (folders.get(folder) ?? 0) + 1);
  }
  return [...folders.entries()].sort(([left], [right]) => left.localeCompare(right)).map(([folder, count]) => `- \`${folder}\`: ${count} file${count === 1 ? '' : 's'}`);
}

/** Values from `.env.example` (or `.env.sample`), for the README's examples. */
export function parseEnvExample(text: string | null): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (match) values.set(match[1] as string, (match[2] ?? '').replace(/^["']|["']$/g, ''));
  }
  return values;
}
