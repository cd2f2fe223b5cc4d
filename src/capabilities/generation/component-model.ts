// What a generated component is, before any framework or styling: a search or entry form when its name and props say so (a SearchBox has an input), a card of its props otherwise, with its state controls and actions.
import { labelOf } from './fields.js';
import { pascalCase } from './names.js';
import type { ComponentTask, FieldSpec } from './task.js';

export type UiPart =
  | { kind: 'title'; text: string }
  | { kind: 'fields'; items: { label: string; prop: FieldSpec }[] }
  | { kind: 'form'; input: { label: string; state: string; type: 'search' | 'text' | 'number'; placeholder: string }; submit: { label: string; handler: FieldSpec } }
  | { kind: 'state'; field: FieldSpec }
  | { kind: 'action'; label: string; handler: FieldSpec };

export type UiSpec = {
  name: string;
  /** Props as the component declares them (a form's handler receives the entered value). */
  props: { field: FieldSpec; type: string }[];
  /** State the component keeps (a form's input value first). */
  state: FieldSpec[];
  parts: UiPart[];
};

const formWords = /(?:Search|Filter|Query|Find|Lookup|Input|Field|Form|Subscribe|Newsletter|Login|SignIn|Comment|Message|Chat|Prompt)/;

const baseTypes: Record<FieldSpec['type'], string> = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'Record<string, unknown>', handler: '() => void' };

/** The component the task describes: a form whose submit calls the first handler with the entered text when the name asks for input. */
export function componentSpec(task: ComponentTask): UiSpec {
  const handlers = task.props.filter((prop) => prop.type === 'handler');
  const shown = task.props.filter((prop) => prop.type !== 'handler');
  const entry = formWords.exec(task.name)?.[0] ?? null;
  const submit = entry ? handlers.find((handler) => /^on(?:Search|Submit|Change|Query|Filter|Find|Send|Save)/.test(handler.name)) ?? handlers[0] ?? null : null;
  const parts: UiPart[] = [];
  const state = [...task.state];
  let inputState: string | null = null;
  if (entry) {
    inputState = /Search|Filter|Query|Find|Lookup/.test(entry) ? 'query' : 'value';
    if (!state.some((field) => field.name === inputState)) state.unshift({ name: inputState, type: 'string', optional: false, list: false });
  } else {
    parts.push({ kind: 'title', text: labelOf(task.name) });
  }
  // A placeholder or label prop goes on the form's input; without a form it is shown like any other prop, never declared and left unused.
  const placeholderProp = entry && inputState && submit ? shown.find((prop) => /placeholder|label/i.test(prop.name) && (prop.type === 'string' || prop.type === 'text')) : undefined;
  const displayed = shown.filter((prop) => prop !== placeholderProp);
  if (displayed.length > 0) parts.push({ kind: 'fields', items: displayed.map((prop) => ({ label: labelOf(prop.name), prop })) });
  if (entry && inputState && submit) {
    const verb = /^on([A-Z]\w*)/.exec(submit.name)?.[1] ?? 'Submit';
    parts.push({ kind: 'form', input: { label: labelOf(inputState === 'query' ? 'search' : task.name.replace(/Box|Input|Field|Form$/, '') || 'value'), state: inputState, type: inputState === 'query' ? 'search' : 'text', placeholder: placeholderProp ? placeholderProp.name : '' }, submit: { label: labelOf(verb), handler: submit } });
  }
  for (const field of state.filter((candidate) => candidate.name !== inputState)) parts.push({ kind: 'state', field });
  for (const handler of handlers.filter((candidate) => candidate !== submit)) parts.push({ kind: 'action', label: labelOf(handler.name.replace(/^on/, '')), handler });
  const props = task.props.map((field) => ({ field, type: field === submit && inputState ? `(${inputState}: string) => void` : field.list ? `${baseTypes[field.type]}[]` : baseTypes[field.type] }));
  return { name: pascalCase(task.name), props, state, parts };
}

/** The handler's local function name (`onSearch` → `handleSearch`). */
export function handlerName(handler: FieldSpec): string {
  return `handle${handler.name.replace(/^on/, '')}`;
}
