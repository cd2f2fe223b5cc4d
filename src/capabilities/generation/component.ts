// Component generation: a React or Vue component where the project keeps its components, named, styled (its theme, its UI primitives) and tested the project's way, and exported where its index or package exports them.
import { posix } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import { readTsconfig } from '../../project/tsconfig.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { componentSpec } from './component-model.js';
import { componentTestSource, testConvention } from './component-test.js';
import { componentPlacement, cssVariableNames, learnedLayout, packageExportStep, propsStyle, reExportStep, uiShortcuts, vueHouseStyle } from './component-place.js';
import { conventionsOf, importSpecifier, readProjectFile } from './conventions.js';
import { importBlock } from './imports.js';
import { printSource } from './printer.js';
import { reactComponentSource } from './react-component.js';
import { attributeKit, themeKit } from './react-kits.js';
import { chooseStyling, themeTokens } from './styling.js';
import type { ComponentTask } from './task.js';
import { indentMarkup, vueComponentScript, vueComponentTemplate, vueStyling } from './vue-component.js';

/** Next.js's App Router renders components on the server unless they say 'use client': one with hooks or event handlers must. */
function clientDirective(context: ProjectContext, body: string): boolean {
  if (!context.frameworks.includes('Next.js')) return false;
  const appRouter = Object.keys(context.files).some((path) => /(?:^|\/)app\/(?:.*\/)?(?:page|layout)\.[jt]sx?$/.test(path));
  return appRouter && /\buse[A-Z]\w*\(|\son[A-Z]\w*=\{/.test(body);
}

export async function generateComponent(task: ComponentTask, options: { cwd: string; context: ProjectContext }): Promise<PlanDraft> {
  const { context, cwd } = options;
  const framework = task.framework ?? (context.frameworks.some((name) => name === 'Vue' || name === 'Nuxt') ? 'vue' : context.frameworks.some((name) => ['React', 'Next.js', 'Preact', 'Remix'].includes(name)) ? 'react' : null);
  if (!framework) {
    throw new CadreError('generation.no-ui-framework', 'This project uses neither React nor Vue, so cadre cannot generate a component for it offline.', { remedy: 'Add react or vue to package.json (or say "React component"/"Vue component"), or configure a model for other frameworks.', exitCode: exitCodes.usage });
  }
  const conventions = conventionsOf(context);
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const spec = componentSpec(task);
  const place = componentPlacement(context, framework, spec.name, conventions.typescript);
  const componentPath = place.path;
  if (context.files[componentPath] || (await read(componentPath)) !== null) {
    throw new CadreError('generation.exists', `${componentPath} already exists.`, { remedy: 'Choose another component name, or ask for a change to the existing component (that needs a model).', exitCode: exitCodes.usage });
  }
  const style = { ...context.style, commonjs: false, layout: context.style.importOrder ? null : await learnedLayout(context, read, posix.dirname(componentPath)) };
  const tsconfig = await readTsconfig(cwd, place.tsconfig);
  const tokens = await themeTokens(context, read);
  const steps: PlanStep[] = [];
  const convention = testConvention(context, framework);
  if (framework === 'react') {
    const typescript = conventions.typescript;
    const kit = themeKit(context, tsconfig, componentPath, await cssVariableNames(context, read)) ?? (() => {
      const styling = chooseStyling({ name: posix.basename(componentPath).replace(/\.[jt]sx$/, ''), context, conventions, tokens });
      if (styling.stylesheet) steps.push({ action: 'create-file', path: posix.join(posix.dirname(componentPath), styling.stylesheet.fileName), summary: `${spec.name} styles`, content: styling.stylesheet.content });
      const kitImports = styling.imports.map((line) => {
        const source = /from '([^']+)'|import '([^']+)'/.exec(line)?.slice(1).find(Boolean) ?? '';
        const named = /\{([^}]*)\}/.exec(line)?.[1]?.split(',').map((name) => name.trim()).filter(Boolean);
        const fallback = /^import (\w+) from/.exec(line)?.[1];
        return { source, ...(named ? { named } : fallback ? { default: fallback } : {}) };
      });
      return { kit: attributeKit(styling.approach, (part) => (part === 'field' ? '' : styling[part].attributes), { root: styling.root.tag, title: styling.title.tag, button: styling.button.tag }, kitImports), declarations: styling.declarations };
    })();
    const reactKit = 'kit' in kit ? kit.kit : kit;
    const declarations = 'kit' in kit ? kit.declarations : '';
    const { body, imports } = reactComponentSource(spec, reactKit, { typescript, defaultExport: place.defaultExport, propsStyle: propsStyle(context), declarations, extraImports: [] });
    const source = `${clientDirective(context, body) ? '\'use client\';\n\n' : ''}${importBlock(imports, style)}\n\n${body}`;
    steps.unshift({ action: 'create-file', path: componentPath, summary: `${spec.name}: ${describe(spec)}, styled with ${reactKit.approach}`, content: await printSource(componentPath, source, context.style) });
    if (convention) {
      const testPath = posix.join(convention.folder(componentPath), convention.fileName(posix.basename(componentPath).replace(/\.[jt]sx$/, ''), typescript ? 'tsx' : 'jsx'));
      const importPath = componentImportFor(testPath, componentPath, conventions);
      steps.push({ action: 'create-tests', path: testPath, summary: `${convention.runner} test (${convention.library}): ${spec.name} renders its props`, content: await printSource(testPath, componentTestSource(spec, convention, importPath, { defaultExport: place.defaultExport, commonjs: false, style }), context.style) });
    }
  } else {
    const house = await vueHouseStyle(context, read);
    const styling = vueStyling(spec.name, context, tokens, await uiShortcuts(context, read), house.library);
    const autoImports = Object.keys(context.files).some((path) => /(?:^|\/)auto-imports\.d\.ts$/.test(path));
    const script = await printSource(`${componentPath}.ts`, vueComponentScript(spec, { typescript: conventions.typescript, autoImports }), context.style);
    const blocks = [`<script setup${conventions.typescript ? ' lang="ts"' : ''}>\n${script}</script>\n`, indentMarkup(vueComponentTemplate(spec, styling), context.style.indent)];
    const content = `${(house.templateFirst ? blocks.reverse() : blocks).join('\n')}${styling.style ? `\n${indentMarkup(styling.style, context.style.indent)}` : ''}`;
    steps.push({ action: 'create-file', path: componentPath, summary: `${spec.name} (script setup): ${describe(spec)}, styled with ${styling.approach}`, content: context.style.formatter === 'prettier' ? await printSource(componentPath, content, context.style) : content });
    if (convention) {
      const testPath = posix.join(convention.folder(componentPath), convention.fileName(place.indexFile ? spec.name : posix.basename(componentPath).replace(/\.vue$/, ''), conventions.typescript ? 'ts' : 'js'));
      steps.push({ action: 'create-tests', path: testPath, summary: `${convention.runner} test (${convention.library}): ${spec.name} renders its props`, content: await printSource(testPath, componentTestSource(spec, convention, componentImportFor(testPath, componentPath, conventions), { defaultExport: true, commonjs: false, style }), context.style) });
    }
  }
  const index = await reExportStep(context, read, place, componentPath, spec.name, conventions);
  if (index) steps.push(index);
  const exported = await packageExportStep(context, read, componentPath);
  if (exported) steps.push(exported);
  return { title: `Create the ${spec.name} ${framework === 'react' ? 'React' : 'Vue'} component`, steps };
}

function componentImportFor(from: string, target: string, conventions: ReturnType<typeof conventionsOf>): string {
  return /\.vue$/.test(target) ? posix.relative(posix.dirname(from), target).replace(/^(?!\.)/, './') : importSpecifier(from, target, conventions);
}

function describe(spec: ReturnType<typeof componentSpec>): string {
  const form = spec.parts.find((part) => part.kind === 'form');
  const shown = spec.parts.filter((part) => part.kind === 'fields').flatMap((part) => (part.kind === 'fields' ? part.items : []));
  return [form && form.kind === 'form' ? `a ${form.input.type} input whose ${form.submit.label.toLowerCase()} calls ${form.submit.handler.name}(${form.input.state})` : null, shown.length > 0 ? `shows ${shown.map((item) => item.prop.name).join(', ')}` : null, spec.state.length > 0 ? `${spec.state.length} state value(s)` : null].filter(Boolean).join('; ') || 'no props';
}
