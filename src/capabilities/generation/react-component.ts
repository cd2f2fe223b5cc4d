// The canonical source of a React function component: props interface, state, event handlers, styled root.
import type { ComponentStyling } from './styling.js';
import { labelOf, tsType } from './fields.js';
import { pascalCase } from './names.js';
import type { ComponentTask, FieldSpec } from './task.js';

export function reactComponentSource(task: ComponentTask, styling: ComponentStyling, options: { typescript: boolean; defaultExport: boolean }): string {
  const { name, props, state } = task;
  const typed = options.typescript;
  const handlers = props.filter((prop) => prop.type === 'handler');
  const shown = props.filter((prop) => prop.type !== 'handler');
  const lines: string[] = [`// ${name}: ${describe(task, styling)}.`];
  if (state.length > 0) lines.push('import { useState } from \'react\';');
  lines.push(...styling.imports, '');
  if (typed && props.length > 0) {
    lines.push(`export interface ${name}Props {`, ...props.map((prop) => `  ${prop.name}${prop.optional ? '?' : ''}: ${tsType(prop)};`), '}', '');
  }
  if (styling.declarations) lines.push(styling.declarations, '');
  const parameter = props.length === 0 ? '' : `{ ${props.map((prop) => prop.name).join(', ')} }${typed ? `: ${name}Props` : ''}`;
  lines.push(`${options.defaultExport ? 'export default' : 'export'} function ${name}(${parameter}) {`);
  for (const field of state) {
    const setter = `set${pascalCase(field.name)}`;
    lines.push(`  const [${field.name}, ${setter}] = useState${typed ? `<${stateType(field)}>` : ''}(${initialValue(field)});`);
  }
  for (const handler of handlers) {
    lines.push(`  const ${handlerName(handler)} = () => {`, `    ${handler.name}${handler.optional ? '?.' : ''}();`, '  };');
  }
  const open = (part: { tag: string; attributes: string }, extra = ''): string => `<${part.tag}${part.attributes}${extra}>`;
  const buttonType = styling.button.attributes.includes('type=') || styling.button.tag !== 'button' ? '' : ' type="button"';
  lines.push('  return (', `    ${open(styling.root)}`, `      ${open(styling.title)}${labelOf(name)}</${styling.title.tag}>`);
  if (shown.length > 0) {
    lines.push('      <dl>');
    for (const prop of shown) lines.push(`        <dt>${labelOf(prop.name)}</dt>`, `        <dd>{${display(prop)}}</dd>`);
    lines.push('      </dl>');
  }
  for (const field of state) lines.push(...stateControl(field, styling, buttonType));
  for (const handler of handlers) {
    lines.push(`      ${open(styling.button, `${buttonType} onClick={${handlerName(handler)}}`)}${labelOf(handler.name.replace(/^on/, ''))}</${styling.button.tag}>`);
  }
  lines.push(`    </${styling.root.tag}>`, '  );', '}');
  return `${lines.join('\n')}\n`;
}

function describe(task: ComponentTask, styling: ComponentStyling): string {
  const parts = [`${task.props.length} prop(s)`, `${task.state.length} state value(s)`];
  return `${labelOf(task.name).toLowerCase()}, with ${parts.join(' and ')}, styled with ${styling.approach}`;
}

export function handlerName(handler: FieldSpec): string {
  return `handle${handler.name.replace(/^on/, '')}`;
}

function display(prop: FieldSpec): string {
  const access = prop.optional ? '?.' : '.';
  if (prop.list) return `${prop.name}${access}join(', ')`;
  switch (prop.type) {
    case 'boolean': return `${prop.name} ? 'Yes' : 'No'`;
    case 'date': return `${prop.name}${access}toLocaleDateString()`;
    case 'json': return `JSON.stringify(${prop.name})`;
    default: return prop.name;
  }
}

function stateType(field: FieldSpec): string {
  return field.type === 'date' && !field.list ? 'Date | null' : tsType(field);
}

function initialValue(field: FieldSpec): string {
  if (field.list) return '[]';
  switch (field.type) {
    case 'string': case 'text': return '\'\'';
    case 'int': case 'number': return '0';
    case 'boolean': return 'false';
    case 'json': return '{}';
    default: return 'null';
  }
}

function stateControl(field: FieldSpec, styling: ComponentStyling, buttonType: string): string[] {
  const setter = `set${pascalCase(field.name)}`;
  const button = (handler: string, label: string): string => `      <${styling.button.tag}${styling.button.attributes}${buttonType} onClick={${handler}}>${label}</${styling.button.tag}>`;
  if (field.list) return [`      <p>${labelOf(field.name)}: {${field.name}.length}</p>`];
  switch (field.type) {
    case 'boolean':
      return [`      <p>${labelOf(field.name)}: {${field.name} ? 'Yes' : 'No'}</p>`, button(`() => ${setter}((current) => !current)`, `Toggle ${labelOf(field.name).toLowerCase()}`)];
    case 'string': case 'text':
      return ['      <label>', `        ${labelOf(field.name)}`, `        <input value={${field.name}} onChange={(event) => ${setter}(event.target.value)} />`, '      </label>'];
    case 'int': case 'number':
      return [`      <p>${labelOf(field.name)}: {${field.name}}</p>`, button(`() => ${setter}((current) => current + 1)`, `Increase ${labelOf(field.name).toLowerCase()}`)];
    case 'date':
      return [`      <p>${labelOf(field.name)}: {${field.name}?.toLocaleDateString() ?? 'not set'}</p>`, button(`() => ${setter}(new Date())`, `Set ${labelOf(field.name).toLowerCase()}`)];
    default:
      return [`      <p>${labelOf(field.name)}: {JSON.stringify(${field.name})}</p>`];
  }
}
