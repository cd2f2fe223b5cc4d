// The canonical source of a Vue single-file component (script setup): typed props, emits for handlers, refs for state, styling.
import type { ProjectContext } from '../../project/context.js';
import { labelOf, tsType } from './fields.js';
import { kebabCase, pascalCase } from './names.js';
import type { ThemeTokens } from './styling.js';
import type { ComponentTask, FieldSpec } from './task.js';

export function vueComponentScript(task: ComponentTask, options: { typescript: boolean }): string {
  const shown = task.props.filter((prop) => prop.type !== 'handler');
  const handlers = task.props.filter((prop) => prop.type === 'handler');
  const lines: string[] = [];
  if (task.state.length > 0) lines.push('import { ref } from \'vue\';', '');
  if (shown.length > 0) {
    lines.push(options.typescript
      ? `const props = defineProps<{ ${shown.map((prop) => `${prop.name}${prop.optional ? '?' : ''}: ${tsType(prop)}`).join('; ')} }>();`
      : `const props = defineProps({ ${shown.map((prop) => `${prop.name}: { type: ${runtimeType(prop)}, required: ${!prop.optional} }`).join(', ')} });`);
  }
  if (handlers.length > 0) {
    lines.push(options.typescript
      ? `const emit = defineEmits<{ ${handlers.map((handler) => `(event: '${eventName(handler)}'): void`).join('; ')} }>();`
      : `const emit = defineEmits([${handlers.map((handler) => `'${eventName(handler)}'`).join(', ')}]);`);
  }
  for (const field of task.state) lines.push(`const ${field.name} = ref${options.typescript ? `<${field.type === 'date' && !field.list ? 'Date | null' : tsType(field)}>` : ''}(${initial(field)});`);
  for (const handler of handlers) lines.push(`function handle${handler.name.replace(/^on/, '')}() {`, `  emit('${eventName(handler)}');`, '}');
  return `${lines.join('\n')}\n`;
}

export function vueComponentTemplate(task: ComponentTask, classes: { root: string; title: string; button: string }): string {
  const shown = task.props.filter((prop) => prop.type !== 'handler');
  const handlers = task.props.filter((prop) => prop.type === 'handler');
  const lines = [`  <section ${classes.root}>`, `    <h2 ${classes.title}>${labelOf(task.name)}</h2>`];
  if (shown.length > 0) {
    lines.push('    <dl>');
    for (const prop of shown) lines.push(`      <dt>${labelOf(prop.name)}</dt>`, `      <dd>{{ ${display(prop)} }}</dd>`);
    lines.push('    </dl>');
  }
  for (const field of task.state) {
    if (field.type === 'boolean' && !field.list) lines.push(`    <button type="button" ${classes.button} @click="${field.name} = !${field.name}">Toggle ${labelOf(field.name).toLowerCase()}</button>`);
    else if ((field.type === 'string' || field.type === 'text') && !field.list) lines.push(`    <label>${labelOf(field.name)} <input v-model="${field.name}" /></label>`);
    else if ((field.type === 'int' || field.type === 'number') && !field.list) lines.push(`    <button type="button" ${classes.button} @click="${field.name} += 1">${labelOf(field.name)}: {{ ${field.name} }}</button>`);
    else lines.push(`    <p>${labelOf(field.name)}: {{ ${field.name} }}</p>`);
  }
  for (const handler of handlers) lines.push(`    <button type="button" ${classes.button} @click="handle${handler.name.replace(/^on/, '')}">${labelOf(handler.name.replace(/^on/, ''))}</button>`);
  lines.push('  </section>');
  return `<template>\n${lines.join('\n')}\n</template>\n`;
}

/** Class bindings and the `<style>` block for the project's theming approach. */
export function vueStyling(task: ComponentTask, context: ProjectContext, tokens: ThemeTokens): { approach: string; classes: { root: string; title: string; button: string }; style: string } {
  if (context.theming.includes('Tailwind CSS')) {
    return { approach: 'Tailwind CSS utility classes', style: '', classes: { root: 'class="flex flex-col gap-2 rounded-lg bg-white p-4 shadow-sm"', title: 'class="text-lg font-semibold"', button: 'class="rounded-md bg-blue-600 px-3 py-1 text-white"' } };
  }
  const lang = context.theming.includes('Sass') ? ' lang="scss"' : context.theming.includes('Less') ? ' lang="less"' : '';
  const rules = `{\n  display: flex;\n  flex-direction: column;\n  gap: ${tokens.space};\n  padding: ${tokens.space};\n  background: ${tokens.surface};\n  color: ${tokens.text};\n  border-radius: ${tokens.radius};\n}`;
  const button = `{\n  align-self: flex-start;\n  border: none;\n  border-radius: ${tokens.radius};\n  background: ${tokens.accent};\n  color: ${tokens.surface};\n}`;
  if (context.theming.includes('CSS modules')) {
    return { approach: 'a CSS module', style: `<style module${lang}>\n.root ${rules}\n.title {\n  margin: 0;\n}\n.button ${button}\n</style>\n`, classes: { root: ':class="$style.root"', title: ':class="$style.title"', button: ':class="$style.button"' } };
  }
  const base = kebabCase(task.name);
  return { approach: `scoped styles${context.theming.includes('CSS variables') ? ' on the theme\'s CSS variables' : ''}`,
    style: `<style scoped${lang}>\n.${base} ${rules}\n.${base}__title {\n  margin: 0;\n}\n.${base}__button ${button}\n</style>\n`,
    classes: { root: `class="${base}"`, title: `class="${base}__title"`, button: `class="${base}__button"` } };
}

function eventName(handler: FieldSpec): string {
  return kebabCase(pascalCase(handler.name.replace(/^on/, '')));
}

function display(prop: FieldSpec): string {
  const access = prop.optional ? '?.' : '.';
  if (prop.list) return `props.${prop.name}${access}join(', ')`;
  if (prop.type === 'boolean') return `props.${prop.name} ? 'Yes' : 'No'`;
  if (prop.type === 'date') return `props.${prop.name}${access}toLocaleDateString()`;
  return `props.${prop.name}`;
}

function runtimeType(prop: FieldSpec): string {
  if (prop.list) return 'Array';
  return { string: 'String', text: 'String', int: 'Number', number: 'Number', boolean: 'Boolean', date: 'Date', json: 'Object', handler: 'Function' }[prop.type];
}

function initial(field: FieldSpec): string {
  if (field.list) return '[]';
  return { string: '\'\'', text: '\'\'', int: '0', number: '0', boolean: 'false', date: 'null', json: '{}', handler: 'null' }[field.type];
}
