// Component generation: a React or Vue component in the project's folder, naming, style and theming, its test, and the index re-export.
import { posix } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { reactComponentTestSource, testRunnerOf, vueComponentTestSource } from './component-test.js';
import { type Conventions, busiestFolder, conventionsOf, importSpecifier, readProjectFile } from './conventions.js';
import { formatSource } from './format.js';
import { fileBaseName } from './names.js';
import { reactComponentSource } from './react-component.js';
import { chooseStyling, themeTokens } from './styling.js';
import type { ComponentTask } from './task.js';
import { vueComponentScript, vueComponentTemplate, vueStyling } from './vue-component.js';

export async function generateComponent(task: ComponentTask, options: { cwd: string; context: ProjectContext }): Promise<PlanDraft> {
  const { context, cwd } = options;
  const framework = task.framework ?? (context.frameworks.some((name) => name === 'Vue' || name === 'Nuxt') ? 'vue' : context.frameworks.some((name) => ['React', 'Next.js', 'Preact', 'Remix'].includes(name)) ? 'react' : null);
  if (!framework) {
    throw new CadreError('generation.no-ui-framework', 'This project uses neither React nor Vue, so cadre cannot generate a component for it offline.', { remedy: 'Add react or vue to package.json (or say "React component"/"Vue component"), or configure a model for other frameworks.', exitCode: exitCodes.usage });
  }
  const conventions = conventionsOf(context);
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const tokens = await themeTokens(context, read);
  const folder = componentFolder(context, framework);
  const existing = Object.keys(context.files);
  const steps: PlanStep[] = [];
  let componentPath: string;
  let testSource: string | null = null;
  const runner = testRunnerOf(context);
  if (framework === 'react') {
    const extension = conventions.typescript ? 'tsx' : 'jsx';
    const base = componentFileName(context, folder, task.name);
    componentPath = posix.join(folder, `${base}.${extension}`);
    const defaultExport = usesDefaultExports(context, folder);
    const styling = chooseStyling({ name: base, context, conventions, tokens });
    steps.push({ action: 'create-file', path: componentPath, summary: `${task.name} component styled with ${styling.approach}`, content: formatSource(reactComponentSource(task, styling, { typescript: conventions.typescript, defaultExport }), conventions.style) });
    if (styling.stylesheet) steps.push({ action: 'create-file', path: posix.join(folder, styling.stylesheet.fileName), summary: `${task.name} styles`, content: styling.stylesheet.content });
    if (runner) {
      const testPath = posix.join(folder, `${base}.test.${extension}`);
      testSource = formatSource(reactComponentTestSource(task, { runner, componentImport: importSpecifier(testPath, componentPath, conventions), defaultExport }), conventions.style);
      steps.push({ action: 'create-tests', path: testPath, summary: `${runner} test: ${task.name} renders its title and props`, content: testSource });
    }
    const indexStep = await reExport({ folder, existing, read, conventions, name: task.name, componentPath, defaultExport });
    if (indexStep) steps.push(indexStep);
  } else {
    const base = componentFileName(context, folder, task.name);
    componentPath = posix.join(folder, `${base}.vue`);
    const styling = vueStyling(task, context, tokens);
    const script = formatSource(vueComponentScript(task, { typescript: conventions.typescript }), conventions.style);
    const content = `<script setup${conventions.typescript ? ' lang="ts"' : ''}>\n${script}</script>\n\n${vueComponentTemplate(task, styling.classes)}${styling.style ? `\n${styling.style}` : ''}`;
    steps.push({ action: 'create-file', path: componentPath, summary: `${task.name} component (script setup) styled with ${styling.approach}`, content });
    if (runner) {
      const testPath = posix.join(folder, `${base}.test.${conventions.typescript ? 'ts' : 'js'}`);
      steps.push({ action: 'create-tests', path: testPath, summary: `${runner} test: ${task.name} renders its title and props`, content: formatSource(vueComponentTestSource(task, { runner, componentImport: importSpecifier(testPath, componentPath, conventions) }), conventions.style) });
    }
    const indexStep = await reExport({ folder, existing, read, conventions, name: task.name, componentPath, defaultExport: true });
    if (indexStep) steps.push(indexStep);
  }
  if (existing.includes(componentPath)) {
    throw new CadreError('generation.exists', `${componentPath} already exists.`, { remedy: 'Choose another component name, or ask for a change to the existing component (that needs a model).', exitCode: exitCodes.usage });
  }
  return { title: `Create the ${task.name} ${framework === 'react' ? 'React' : 'Vue'} component`, steps };
}

function componentFolder(context: ProjectContext, framework: 'react' | 'vue'): string {
  const isComponentFile = framework === 'vue'
    ? (path: string): boolean => path.endsWith('.vue') && !/(?:^|\/)(?:pages|views|layouts)\//.test(path)
    : (path: string, entry: ProjectContext['files'][string]): boolean => /\.[jt]sx$/.test(path) && !/\.test\.|\.spec\./.test(path) && (entry.facts?.symbols.some((symbol) => symbol.kind === 'component' && symbol.exported) ?? false) && !/(?:^|\/)(?:App|main|index)\.[jt]sx$/.test(path);
  return busiestFolder(context, isComponentFile, 'src/components');
}

/** Component files are named after the component (PascalCase) when the folder's are; otherwise in the project's file naming. */
function componentFileName(context: ProjectContext, folder: string, name: string): string {
  const bases = Object.keys(context.files).filter((path) => posix.dirname(path) === folder && /\.(?:[jt]sx|vue)$/.test(path)).map((path) => posix.basename(path).split('.')[0] ?? '');
  if (bases.length === 0 || bases.filter((base) => /^[A-Z]/.test(base)).length * 2 >= bases.length) return name;
  return fileBaseName(name, context.style.fileNaming);
}

function usesDefaultExports(context: ProjectContext, folder: string): boolean {
  const entries = Object.entries(context.files).filter(([path]) => posix.dirname(path) === folder && /\.[jt]sx$/.test(path));
  const defaults = entries.filter(([, entry]) => entry.facts?.exports.includes('default')).length;
  return entries.length > 0 && defaults * 2 > entries.length;
}

async function reExport(input: { folder: string; existing: string[]; read: (path: string) => Promise<string | null>; conventions: Conventions; name: string; componentPath: string; defaultExport: boolean }): Promise<PlanStep | null> {
  const indexPath = ['index.ts', 'index.tsx', 'index.js', 'index.jsx'].map((file) => posix.join(input.folder, file)).find((path) => input.existing.includes(path));
  if (!indexPath) return null;
  const text = await input.read(indexPath);
  if (text === null) return null;
  const specifier = importSpecifier(indexPath, input.componentPath, input.conventions);
  const line = formatSource(input.defaultExport ? `export { default as ${input.name} } from '${specifier}';` : `export { ${input.name} } from '${specifier}';`, input.conventions.style);
  return { action: 'update-exports', path: indexPath, summary: `re-export ${input.name}`, content: `${text.replace(/\n*$/, '\n')}${line}` };
}
