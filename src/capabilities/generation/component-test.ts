// The canonical source of a generated component's test in the project's runner: server-renders it with sample props and checks the text.
import type { ProjectContext } from '../../project/context.js';
import { labelOf, sampleText, sampleValue } from './fields.js';
import type { ComponentTask } from './task.js';

export type TestRunner = 'vitest' | 'jest' | 'node:test';

export function testRunnerOf(context: ProjectContext): TestRunner | null {
  if (context.testRunners.includes('vitest')) return 'vitest';
  if (context.testRunners.includes('jest')) return 'jest';
  if (context.testRunners.includes('node:test') || context.testRunners.includes('mocha')) return 'node:test';
  return null;
}

/** Imports for `describe`, `it`, `expect`-style assertions in each runner, and how to assert that `html` contains a text. */
export function runnerPreamble(runner: TestRunner): { imports: string[]; contains: (subject: string, text: string) => string } {
  if (runner === 'vitest') return { imports: ['import { describe, expect, it } from \'vitest\';'], contains: (subject, text) => `expect(${subject}).toContain(${text});` };
  if (runner === 'jest') return { imports: [], contains: (subject, text) => `expect(${subject}).toContain(${text});` };
  return { imports: ['import assert from \'node:assert/strict\';', 'import { describe, it } from \'node:test\';'], contains: (subject, text) => `assert.ok(${subject}.includes(${text}));` };
}

export function reactComponentTestSource(task: ComponentTask, options: { runner: TestRunner; componentImport: string; defaultExport: boolean }): string {
  const preamble = runnerPreamble(options.runner);
  const props = task.props.map((prop) => ((prop.type === 'string' || prop.type === 'text') && !prop.list ? ` ${prop.name}="${sampleText(prop)}"` : ` ${prop.name}={${sampleValue(prop)}}`)).join('');
  const expectations = [`'${labelOf(task.name)}'`, ...task.props.map(sampleText).filter((text): text is string => text !== null).map((text) => `'${text}'`)];
  const component = options.defaultExport ? task.name : `{ ${task.name} }`;
  return [
    `// ${task.name}: renders its title and the props it is given.`,
    'import { renderToStaticMarkup } from \'react-dom/server\';',
    ...preamble.imports,
    `import ${component} from '${options.componentImport}';`,
    '',
    `describe('${task.name}', () => {`,
    '  it(\'renders its title and props\', () => {',
    `    const html = renderToStaticMarkup(<${task.name}${props} />);`,
    ...expectations.map((text) => `    ${preamble.contains('html', text)}`),
    '  });',
    '});',
    '',
  ].join('\n');
}

export function vueComponentTestSource(task: ComponentTask, options: { runner: TestRunner; componentImport: string }): string {
  const preamble = runnerPreamble(options.runner);
  const props = task.props.filter((prop) => prop.type !== 'handler').map((prop) => `${prop.name}: ${sampleValue(prop)}`).join(', ');
  const expectations = [`'${labelOf(task.name)}'`, ...task.props.map(sampleText).filter((text): text is string => text !== null).map((text) => `'${text}'`)];
  return [
    `// ${task.name}: renders its title and the props it is given.`,
    'import { createSSRApp, h } from \'vue\';',
    'import { renderToString } from \'vue/server-renderer\';',
    ...preamble.imports,
    `import ${task.name} from '${options.componentImport}';`,
    '',
    `describe('${task.name}', () => {`,
    '  it(\'renders its title and props\', async () => {',
    `    const html = await renderToString(createSSRApp({ render: () => h(${task.name}, { ${props} }) }));`,
    ...expectations.map((text) => `    ${preamble.contains('html', text)}`),
    '  });',
    '});',
    '',
  ].join('\n');
}
