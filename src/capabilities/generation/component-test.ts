// A generated component's test, placed, named and written like the project's own component tests (runner, render library, folder, file name); server rendering when it has none.
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import { fileRole } from '../../project/roles.js';
import type { UiSpec } from './component-model.js';
import { sampleText, sampleValue } from './fields.js';
import { importBlock, type ImportSpec } from './imports.js';
import { kebabCase } from './names.js';
import type { FieldSpec } from './task.js';

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

type Library = 'vitest-browser-react' | '@testing-library/react' | '@vue/test-utils' | 'react-dom/server' | 'vue/server-renderer';

export type TestConvention = { library: Library; runner: TestRunner; folder: (componentPath: string) => string; fileName: (name: string, extension: string) => string };

/** How the project tests its components, learned from an existing component test; null when it has no test runner. */
export function testConvention(context: ProjectContext, framework: 'react' | 'vue'): TestConvention | null {
  const runner = testRunnerOf(context);
  if (!runner) return null;
  const libraries: Library[] = framework === 'react' ? ['vitest-browser-react', '@testing-library/react'] : ['@vue/test-utils'];
  const tests = Object.entries(context.files).filter(([path, entry]) => fileRole(path) === 'test' && (entry.facts?.imports.some((fact) => libraries.includes(fact.source as Library) || /\.vue$/.test(fact.source)) ?? false)).sort(([left], [right]) => left.localeCompare(right));
  const found = tests[0];
  if (!found) {
    return { library: framework === 'react' ? 'react-dom/server' : 'vue/server-renderer', runner, folder: (componentPath) => posix.dirname(componentPath), fileName: (name, extension) => `${name}.test.${extension}` };
  }
  const [path, entry] = found;
  const library = (entry.facts?.imports.find((fact) => libraries.includes(fact.source as Library))?.source ?? (framework === 'vue' ? 'vue/server-renderer' : 'react-dom/server')) as Library;
  const component = entry.facts?.imports.find((fact) => fact.source.startsWith('.') && /(?:\.vue|\/[\w-]+)$/.test(fact.source))?.source;
  const sibling = component !== undefined && component.startsWith('./');
  const base = posix.basename(path);
  const suffix = /\.((?:test|spec)\.[cm]?[jt]sx?)$/.exec(base)?.[1] ?? 'test.ts';
  const kind = suffix.split('.')[0] as string;
  const upper = /^[A-Z]/.test(base);
  return {
    library, runner,
    folder: (componentPath) => (sibling ? posix.dirname(componentPath) : posix.dirname(path)),
    fileName: (name, extension) => `${upper ? name : kebabCase(name)}.${kind}.${framework === 'vue' ? suffix.split('.').pop() ?? extension : extension}`,
  };
}

function expectations(spec: UiSpec): string[] {
  const texts: string[] = [];
  for (const part of spec.parts) {
    if (part.kind === 'title') texts.push(part.text);
    if (part.kind === 'form') texts.push(part.submit.label);
    if (part.kind === 'fields') for (const item of part.items) {
      texts.push(item.label);
      const sample = sampleText(item.prop);
      if (sample) texts.push(sample);
    }
  }
  return [...new Set(texts)];
}

function sampleProps(spec: UiSpec, jsx: boolean): string {
  const value = (field: FieldSpec): string => (field.type === 'handler' ? '() => undefined' : sampleValue(field));
  if (jsx) return spec.props.map(({ field }) => ((field.type === 'string' || field.type === 'text') && !field.list ? ` ${field.name}="${sampleText(field)}"` : ` ${field.name}={${value(field)}}`)).join('');
  return spec.props.filter(({ field }) => field.type !== 'handler').map(({ field }) => `${field.name}: ${value(field)}`).join(', ');
}

/** The test's source (canonical; the printer formats it). */
export function componentTestSource(spec: UiSpec, convention: TestConvention, componentImport: string, options: { defaultExport: boolean; commonjs: boolean; style: Parameters<typeof importBlock>[1] }): string {
  const texts = expectations(spec);
  const runnerImport: ImportSpec[] = convention.runner === 'vitest' ? [{ source: 'vitest', named: ['describe', 'expect', 'it'] }] : convention.runner === 'node:test' ? [{ source: 'node:assert/strict', default: 'assert' }, { source: 'node:test', named: ['describe', 'it'] }] : [];
  const contains = (subject: string, text: string): string => (convention.runner === 'node:test' ? `assert.ok(${subject}.includes('${text}'));` : `expect(${subject}).toContain('${text}');`);
  const importOf = (spec_: ImportSpec[]): string => importBlock([...spec_, options.defaultExport ? { source: componentImport, default: spec.name } : { source: componentImport, named: [spec.name] }], options.style);
  switch (convention.library) {
    case 'vitest-browser-react':
      return [importOf([...runnerImport, { source: 'vitest-browser-react', named: ['render'] }]), '', `describe('${spec.name}', () => {`, '  it(\'renders its props\', async () => {', `    const { getByText } = await render(<${spec.name}${sampleProps(spec, true)} />);`, ...texts.map((text) => `    await expect.element(getByText('${text}', { exact: true })).toBeInTheDocument();`), '  });', '});', ''].join('\n');
    case '@testing-library/react':
      return [importOf([...runnerImport, { source: '@testing-library/react', named: ['render', 'screen'] }]), '', `describe('${spec.name}', () => {`, '  it(\'renders its props\', () => {', `    render(<${spec.name}${sampleProps(spec, true)} />);`, ...texts.map((text) => `    expect(screen.getByText('${text}')).toBeTruthy();`), '  });', '});', ''].join('\n');
    case '@vue/test-utils':
      return [importOf([{ source: '@vue/test-utils', named: ['mount'] }, ...runnerImport]), '', `describe('component ${spec.name}.vue', () => {`, '  it(\'should render\', () => {', `    const wrapper = mount(${spec.name}, { props: { ${sampleProps(spec, false)} } });`, ...texts.map((text) => `    ${contains('wrapper.text()', text)}`), '  });', '});', ''].join('\n');
    case 'vue/server-renderer':
      return [importOf([{ source: 'vue', named: ['createSSRApp', 'h'] }, { source: 'vue/server-renderer', named: ['renderToString'] }, ...runnerImport]), '', `describe('${spec.name}', () => {`, '  it(\'renders its props\', async () => {', `    const html = await renderToString(createSSRApp({ render: () => h(${spec.name}, { ${sampleProps(spec, false)} }) }));`, ...texts.map((text) => `    ${contains('html', text)}`), '  });', '});', ''].join('\n');
    default:
      return [importOf([{ source: 'react-dom/server', named: ['renderToStaticMarkup'] }, ...runnerImport]), '', `describe('${spec.name}', () => {`, '  it(\'renders its props\', () => {', `    const html = renderToStaticMarkup(<${spec.name}${sampleProps(spec, true)} />);`, ...texts.map((text) => `    ${contains('html', text)}`), '  });', '});', ''].join('\n');
  }
}
