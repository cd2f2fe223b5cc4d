// CONTRIBUTING: the project's real scripts, its code style and test runner, and the checks to run before a pull request.
import type { ProjectContext } from '../../project/context.js';
import { describeScript, installCommand, projectName, runCommand } from './facts.js';

export function contributingMarkdown(context: ProjectContext): string {
  const scripts = context.packageJson?.scripts ?? {};
  const style = context.style;
  const find = (names: RegExp, commands: RegExp): string | undefined => Object.keys(scripts).find((name) => names.test(name)) ?? Object.entries(scripts).find(([, command]) => commands.test(command))?.[0];
  const checks = [find(/^(?:typecheck|type-check|types)$/, /\btsc\b.*--noEmit/), find(/^lint$/, /\beslint\b/), find(/^test$/, /\b(?:vitest|jest|mocha)\b/), find(/^build$/, /$^/)].filter((name, index, all): name is string => Boolean(name) && all.indexOf(name) === index);
  const lines = [`# Contributing to ${projectName(context)}`, '', '## Getting started', '', `1. Install the dependencies: \`${installCommand(context)}\`.`];
  const dev = ['dev', 'start'].find((name) => name in scripts);
  if (dev) lines.push(`2. Run it locally: \`${runCommand(context, dev)}\` (${describeScript(dev, scripts[dev] ?? '')}).`);
  lines.push('', '## Scripts', '');
  for (const [name, command] of Object.entries(scripts)) lines.push(`- \`${runCommand(context, name)}\`: ${describeScript(name, command)} (\`${command}\`).`);
  lines.push('', '## Code style', '',
    `- Indent with ${style.indent.kind === 'tab' ? 'tabs' : `${style.indent.size} spaces`}, ${style.quotes} quotes, ${style.semicolons ? 'semicolons' : 'no semicolons'}.`,
    `- File names: ${style.fileNaming}${context.frameworks.some((name) => ['React', 'Next.js', 'Vue'].includes(name)) ? ' (components are named after the component)' : ''}; identifiers: ${style.identifierNaming}; ${style.importStyle === 'commonjs' ? 'CommonJS `require`' : 'ES module `import`'}s.`);
  if (context.theming.length > 0) lines.push(`- Styling: ${context.theming.join(', ')}.`);
  if (context.testRunners.length > 0) lines.push(`- Tests: ${context.testRunners.join(', ')}; a change comes with a test that fails without it.`);
  lines.push('', '## Before you open a pull request', '');
  if (checks.length > 0) lines.push(...checks.map((name) => `- [ ] \`${runCommand(context, name)}\` passes.`));
  lines.push('- [ ] New environment variables are listed in the README.', '- [ ] The change is described in the pull request: what and why.', '');
  return lines.join('\n');
}
