// A Vue single-file component (script setup) from its spec: typed props, events for handlers (a form emits the entered value), refs for state, and a template styled the project's way (its component library's el-* elements, utility classes and its own shortcuts, or scoped styles on its theme variables).
import type { ProjectContext } from '../../project/context.js';
import type { UiSpec } from './component-model.js';
import { handlerName } from './component-model.js';
import { kebabCase } from './names.js';
import type { ThemeTokens } from './styling.js';
import type { FieldSpec } from './task.js';

/** `library`: the component library whose `el-*` components the template is made of (Element Plus), else plain elements with `classes`. */
export type VueStyling = { approach: string; classes: { root: string; title: string; button: string; field: string; fields: string; form: string }; style: string; library?: 'element-plus' };

const eventName = (handler: FieldSpec): string => {
  const event = handler.name.replace(/^on/, '');
  return event.charAt(0).toLowerCase() + event.slice(1);
};

/** The `<script setup>` body (canonical; printed with the project's style), without auto-imported Vue functions when the project auto-imports them. */
export function vueComponentScript(spec: UiSpec, options: { typescript: boolean; autoImports: boolean }): string {
  const shown = spec.props.filter(({ field }) => field.type !== 'handler');
  const handlers = spec.props.filter(({ field }) => field.type === 'handler');
  const lines: string[] = [];
  if (spec.state.length > 0 && !options.autoImports) lines.push('import { ref } from \'vue\';', '');
  if (shown.length > 0) {
    lines.push(options.typescript
      ? `defineProps<{\n${shown.map(({ field, type }) => `  ${field.name}${field.optional ? '?' : ''}: ${type};`).join('\n')}\n}>();`
      : `defineProps({ ${shown.map(({ field }) => `${field.name}: { type: ${runtimeType(field)}, required: ${!field.optional} }`).join(', ')} });`);
  }
  if (handlers.length > 0) {
    lines.push(options.typescript
      ? `const emit = defineEmits<{\n${handlers.map(({ field, type }) => `  ${eventName(field)}: [${/^\((\w+): string\)/.exec(type)?.[1] ? `${/^\((\w+)/.exec(type)?.[1]}: string` : ''}];`).join('\n')}\n}>();`
      : `const emit = defineEmits([${handlers.map(({ field }) => `'${eventName(field)}'`).join(', ')}]);`);
  }
  if (lines.length > 0) lines.push('');
  for (const field of spec.state) lines.push(`const ${field.name} = ref${options.typescript && (field.list || field.type === 'date' || field.type === 'json') ? `<${stateType(field)}>` : ''}(${initial(field)});`);
  for (const part of spec.parts) {
    if (part.kind === 'form') lines.push('', `function ${handlerName(part.submit.handler)}() {`, `  emit('${eventName(part.submit.handler)}', ${part.input.state}.value);`, '}');
    if (part.kind === 'action') lines.push('', `function ${handlerName(part.handler)}() {`, `  emit('${eventName(part.handler)}');`, '}');
  }
  return `${lines.join('\n')}\n`;
}

/** The template, in the shape Vue's style guide lints for: two-space indent, element text on its own line. */
export function vueComponentTemplate(spec: UiSpec, styling: VueStyling): string {
  if (styling.library === 'element-plus') return elementPlusTemplate(spec);
  const cls = (value: string): string => (value ? ` ${value}` : '');
  const c = styling.classes;
  const element = (tag: string, attributes: string, text: string, indent: string): string[] => [`${indent}<${tag}${attributes}>`, `${indent}  ${text}`, `${indent}</${tag}>`];
  const lines = [`  <section${cls(c.root)}>`];
  for (const part of spec.parts) {
    if (part.kind === 'title') lines.push(...element('h2', cls(c.title), part.text, '    '));
    if (part.kind === 'fields') {
      lines.push(`    <dl${cls(c.fields)}>`);
      for (const { label, prop } of part.items) lines.push(...element('dt', '', label, '      '), ...element('dd', '', `{{ ${display(prop)} }}`, '      '));
      lines.push('    </dl>');
    }
    if (part.kind === 'form') {
      lines.push(`    <form${cls(c.form)} @submit.prevent="${handlerName(part.submit.handler)}">`);
      lines.push(`      <input v-model="${part.input.state}" type="${part.input.type}" aria-label="${part.input.label}"${part.input.placeholder ? ` :placeholder="${part.input.placeholder}"` : ''}${cls(c.field)}>`);
      lines.push(...element('button', ` type="submit"${cls(c.button)}`, part.submit.label, '      '), '    </form>');
    }
    if (part.kind === 'state') lines.push(...stateControl(part.field, c, element));
    if (part.kind === 'action') lines.push(...element('button', ` type="button"${cls(c.button)} @click="${handlerName(part.handler)}"`, part.label, '    '));
  }
  lines.push('  </section>');
  return `<template>\n${lines.join('\n')}\n</template>\n`;
}

/** The template on Element Plus: a card (the title as its header), descriptions for shown props, an inline form of el-input and el-button. */
function elementPlusTemplate(spec: UiSpec): string {
  const element = (tag: string, attributes: string, text: string, indent: string): string[] => [`${indent}<${tag}${attributes}>`, `${indent}  ${text}`, `${indent}</${tag}>`];
  const lines = ['  <el-card shadow="never">'];
  for (const part of spec.parts) {
    if (part.kind === 'title') lines.push('    <template #header>', ...element('span', '', part.text, '      '), '    </template>');
    if (part.kind === 'fields') {
      lines.push('    <el-descriptions :column="1" border>');
      for (const { label, prop } of part.items) lines.push(...element('el-descriptions-item', ` label="${label}"`, `{{ ${display(prop)} }}`, '      '));
      lines.push('    </el-descriptions>');
    }
    if (part.kind === 'form') {
      lines.push(`    <el-form inline @submit.prevent="${handlerName(part.submit.handler)}">`);
      lines.push(`      <el-input v-model="${part.input.state}"${part.input.type === 'text' ? '' : ` type="${part.input.type}"`} aria-label="${part.input.label}"${part.input.placeholder ? ` :placeholder="${part.input.placeholder}"` : ''} />`);
      lines.push(...element('el-button', ' type="primary" native-type="submit"', part.submit.label, '      '), '    </el-form>');
    }
    if (part.kind === 'state') lines.push(...elementPlusState(part.field, element));
    if (part.kind === 'action') lines.push(...element('el-button', ` @click="${handlerName(part.handler)}"`, part.label, '    '));
  }
  lines.push('  </el-card>');
  return `<template>\n${lines.join('\n')}\n</template>\n`;
}

function elementPlusState(field: FieldSpec, element: (tag: string, attributes: string, text: string, indent: string) => string[]): string[] {
  const label = field.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const title = label.charAt(0).toUpperCase() + label.slice(1);
  if (field.list) return element('p', '', `${title}: {{ ${field.name}.length }}`, '    ');
  switch (field.type) {
    case 'boolean': return [`    <el-switch v-model="${field.name}" aria-label="${title}" />`];
    case 'int': case 'number': return [`    <el-input-number v-model="${field.name}" aria-label="${title}" />`];
    case 'string': case 'text': return [`    <el-input v-model="${field.name}" aria-label="${title}" />`];
    default: return element('p', '', `${title}: {{ ${field.name} }}`, '    ');
  }
}

/** Markup written with two-space steps, re-indented in the project's unit (antfu's `stylistic.indent: 4` lints templates with vue/html-indent). */
export function indentMarkup(markup: string, indent: { kind: 'space' | 'tab'; size: number }): string {
  const unit = indent.kind === 'tab' ? '\t' : ' '.repeat(indent.size);
  return unit === '  ' ? markup : markup.replace(/^((?: {2})+)/gm, (spaces) => unit.repeat(spaces.length / 2));
}

function stateControl(field: FieldSpec, c: VueStyling['classes'], element: (tag: string, attributes: string, text: string, indent: string) => string[]): string[] {
  const label = field.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const title = label.charAt(0).toUpperCase() + label.slice(1);
  const button = c.button ? ` ${c.button}` : '';
  if (field.list) return element('p', '', `${title}: {{ ${field.name}.length }}`, '    ');
  switch (field.type) {
    case 'boolean': return [...element('p', '', `${title}: {{ ${field.name} ? 'Yes' : 'No' }}`, '    '), ...element('button', ` type="button"${button} @click="${field.name} = !${field.name}"`, `Toggle ${label}`, '    ')];
    case 'int': case 'number': return [...element('p', '', `${title}: {{ ${field.name} }}`, '    '), ...element('button', ` type="button"${button} @click="${field.name} += 1"`, `Increase ${label}`, '    ')];
    case 'string': case 'text': return [`    <input v-model="${field.name}" type="text" aria-label="${title}"${c.field ? ` ${c.field}` : ''}>`];
    default: return element('p', '', `${title}: {{ ${field.name} }}`, '    ');
  }
}

/** Utility classes (Tailwind or UnoCSS, with the project's own shortcuts such as `btn`), else scoped styles on the theme's variables. */
export function vueStyling(name: string, context: ProjectContext, tokens: ThemeTokens, shortcuts: string[], library: 'element-plus' | null = null): VueStyling {
  if (library === 'element-plus') {
    return { approach: 'Element Plus components (el-card, el-form, el-input, el-button) like the project\'s', style: '', library, classes: { root: '', title: '', button: '', field: '', fields: '', form: '' } };
  }
  const utility = context.theming.includes('Tailwind CSS') || context.theming.includes('UnoCSS');
  if (utility) {
    const button = shortcuts.includes('btn') ? 'class="btn"' : 'class="rounded px-3 py-1 text-sm border"';
    return {
      approach: `${context.theming.includes('UnoCSS') ? 'UnoCSS' : 'Tailwind CSS'} utility classes${shortcuts.includes('btn') ? ' and the project\'s btn shortcut' : ''}`,
      style: '',
      classes: { root: 'class="flex flex-col gap-3 p-4"', title: 'class="text-lg font-semibold"', button, field: 'class="border rounded px-3 py-1"', fields: 'class="grid grid-cols-2 gap-1 text-sm"', form: 'class="flex items-center gap-2"' },
    };
  }
  const lang = context.theming.includes('Sass') ? ' lang="scss"' : context.theming.includes('Less') ? ' lang="less"' : '';
  const base = kebabCase(name);
  const rules = `{\n  display: flex;\n  flex-direction: column;\n  gap: ${tokens.space};\n  padding: ${tokens.space};\n  background: ${tokens.surface};\n  color: ${tokens.text};\n  border-radius: ${tokens.radius};\n}`;
  const button = `{\n  align-self: flex-start;\n  border: none;\n  border-radius: ${tokens.radius};\n  background: ${tokens.accent};\n  color: ${tokens.surface};\n}`;
  if (context.theming.includes('CSS modules')) {
    return { approach: 'a CSS module', style: `<style module${lang}>\n.root ${rules}\n.title {\n  margin: 0;\n}\n.button ${button}\n</style>\n`, classes: { root: ':class="$style.root"', title: ':class="$style.title"', button: ':class="$style.button"', field: '', fields: '', form: '' } };
  }
  return {
    approach: `scoped styles${context.theming.includes('CSS variables') ? ' on the theme\'s CSS variables' : ''}`,
    style: `<style scoped${lang}>\n.${base} ${rules}\n.${base}__title {\n  margin: 0;\n}\n.${base}__button ${button}\n</style>\n`,
    classes: { root: `class="${base}"`, title: `class="${base}__title"`, button: `class="${base}__button"`, field: '', fields: '', form: '' },
  };
}

function display(prop: FieldSpec): string {
  const access = prop.optional ? '?.' : '.';
  if (prop.list) return `${prop.name}${access}join(', ')`;
  if (prop.type === 'boolean') return `${prop.name} ? 'Yes' : 'No'`;
  if (prop.type === 'date') return `${prop.name}${access}toLocaleDateString()`;
  return prop.name;
}

function runtimeType(prop: FieldSpec): string {
  if (prop.list) return 'Array';
  return { string: 'String', text: 'String', int: 'Number', number: 'Number', boolean: 'Boolean', date: 'Date', json: 'Object', handler: 'Function' }[prop.type];
}

function stateType(field: FieldSpec): string {
  const base = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'Record<string, unknown>', handler: 'string' }[field.type];
  return field.list ? `${base}[]` : field.type === 'date' ? 'Date | null' : base;
}

function initial(field: FieldSpec): string {
  if (field.list) return '[]';
  return { string: '\'\'', text: '\'\'', int: '0', number: '0', boolean: 'false', date: 'null', json: '{}', handler: '\'\'' }[field.type];
}

