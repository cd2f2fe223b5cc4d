// The source of a React function component from its spec: typed props, state, a form handler that passes the entered value, and JSX built by the styling kit.
import { handlerName, type UiSpec } from './component-model.js';
import type { ImportSpec } from './imports.js';
import { pascalCase } from './names.js';
import type { ReactKit } from './react-kits.js';
import type { FieldSpec } from './task.js';

export type ReactOptions = { typescript: boolean; defaultExport: boolean; propsStyle: { keyword: 'interface' | 'type'; exported: boolean }; declarations: string; extraImports: ImportSpec[] };

export function reactComponentSource(spec: UiSpec, kit: ReactKit, options: ReactOptions): { body: string; imports: ImportSpec[] } {
  const typed = options.typescript;
  const lines: string[] = [];
  const propsName = `${spec.name}Props`;
  if (typed && spec.props.length > 0) {
    const members = spec.props.map(({ field, type }) => `  ${field.name}${field.optional ? '?' : ''}: ${type};`);
    const exported = options.propsStyle.exported ? 'export ' : '';
    lines.push(options.propsStyle.keyword === 'type' ? `${exported}type ${propsName} = {` : `${exported}interface ${propsName} {`, ...members, options.propsStyle.keyword === 'type' ? '};' : '}', '');
  }
  if (options.declarations) lines.push(options.declarations, '');
  const parameter = spec.props.length === 0 ? '' : `{ ${spec.props.map(({ field }) => field.name).join(', ')} }${typed ? `: ${propsName}` : ''}`;
  lines.push(`${options.defaultExport ? 'export default' : 'export'} function ${spec.name}(${parameter}) {`);
  // A setter nothing calls is left out of the destructuring (projects with noUnusedLocals reject it).
  const controlled = (field: FieldSpec): boolean => !field.list && field.type !== 'json';
  for (const field of spec.state) lines.push(`  const [${field.name}${controlled(field) ? `, set${pascalCase(field.name)}` : ''}] = useState${typed && needsTypeArgument(field) ? `<${stateType(field)}>` : ''}(${initialValue(field)});`);
  const children: string[] = [];
  for (const part of spec.parts) {
    if (part.kind === 'title') children.push(kit.title(part.text));
    else if (part.kind === 'fields') children.push(...kit.fields(part.items.map(({ label, prop }) => ({ label, value: display(prop) }))));
    else if (part.kind === 'form') {
      const name = handlerName(part.submit.handler);
      lines.push(`  function ${name}(event${typed ? ': React.FormEvent<HTMLFormElement>' : ''}) {`, '    event.preventDefault();', `    ${part.submit.handler.name}${part.submit.handler.optional ? '?.' : ''}(${part.input.state});`, '  }');
      children.push(...kit.form({ handler: name, label: part.input.label, value: part.input.state, setter: `set${pascalCase(part.input.state)}`, type: part.input.type, placeholder: part.input.placeholder || null, submit: part.submit.label }));
    } else if (part.kind === 'state') children.push(...stateControl(part.field, kit));
    else children.push(kit.button(part.label, part.handler.name));
  }
  lines.push('  return (', ...kit.root(children).map((line) => `    ${line}`), '  );', '}');
  const imports: ImportSpec[] = [...(spec.state.length > 0 ? [{ source: 'react', named: ['useState'] }] : []), ...options.extraImports, ...kit.imports()];
  return { body: `${lines.join('\n')}\n`, imports };
}

function needsTypeArgument(field: FieldSpec): boolean {
  return field.list || field.type === 'date' || field.type === 'json';
}

function stateType(field: FieldSpec): string {
  const base = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'Record<string, unknown>', handler: 'string' }[field.type];
  return field.list ? `${base}[]` : field.type === 'date' ? 'Date | null' : base;
}

function initialValue(field: FieldSpec): string {
  if (field.list) return '[]';
  switch (field.type) {
    case 'string': case 'text': case 'handler': return '\'\'';
    case 'int': case 'number': return '0';
    case 'boolean': return 'false';
    case 'json': return '{}';
    case 'date': return 'null';
  }
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

function stateControl(field: FieldSpec, kit: ReactKit): string[] {
  const setter = `set${pascalCase(field.name)}`;
  const label = field.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const title = label.charAt(0).toUpperCase() + label.slice(1);
  if (field.list) return [kit.line(`${title}: {${field.name}.length}`)];
  switch (field.type) {
    case 'boolean': return [kit.line(`${title}: {${field.name} ? 'Yes' : 'No'}`), kit.button(`Toggle ${label}`, `() => ${setter}((current) => !current)`)];
    case 'int': case 'number': return [kit.line(`${title}: {${field.name}}`), kit.button(`Increase ${label}`, `() => ${setter}((current) => current + 1)`)];
    case 'date': return [kit.line(`${title}: {${field.name}?.toLocaleDateString() ?? 'not set'}`), kit.button(`Set ${label}`, `() => ${setter}(new Date())`)];
    case 'json': return [kit.line(`${title}: {JSON.stringify(${field.name})}`)];
    default: return [kit.input(title, field.name, setter)];
  }
}
