// How a generated React component is styled, from the project's theme: shadcn/ui primitives and Tailwind theme tokens, MUI components with sx on the theme palette, or plain elements with the project's CSS approach.
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import { aliasFor, type Tsconfig } from '../../project/tsconfig.js';
import { isConventionSource } from './conventions.js';
import type { ImportSpec } from './imports.js';

/** JSX building blocks; each records what it uses so the imports follow. */
export type ReactKit = {
  approach: string;
  imports: () => ImportSpec[];
  root: (children: string[]) => string[];
  title: (text: string) => string;
  fields: (items: { label: string; value: string }[]) => string[];
  form: (input: { handler: string; label: string; value: string; setter: string; type: string; placeholder: string | null; submit: string }) => string[];
  line: (text: string) => string;
  button: (label: string, onClick: string) => string;
  input: (label: string, value: string, setter: string) => string;
};

/** A shadcn/ui primitive the project has (`components/ui/button.tsx`), and the specifier its own files import it by. */
function primitive(context: ProjectContext, tsconfig: Tsconfig, target: string, name: string): string | null {
  const file = Object.keys(context.files).find((path) => isConventionSource(context, path) && new RegExp(`(?:^|/)(?:ui/|packages/ui/src/)${name}\\.tsx$`).test(path) && (context.files[path]?.facts?.exports.some((exported) => exported.toLowerCase() === name) ?? false));
  if (!file) return null;
  const counts = new Map<string, number>();
  for (const entry of Object.values(context.files)) {
    for (const fact of entry.facts?.imports ?? []) {
      if (!fact.source.startsWith('.') && fact.source.endsWith(`/${name}`) && fact.names.some((imported) => imported.toLowerCase() === name)) counts.set(fact.source, (counts.get(fact.source) ?? 0) + 1);
    }
  }
  const used = [...counts.entries()].sort((left, right) => right[1] - left[1])[0]?.[0];
  return used ?? aliasFor(tsconfig, file) ?? posix.relative(posix.dirname(target), file.replace(/\.tsx$/, '')).replace(/^(?!\.)/, './');
}

const quote = (text: string): string => text.replace(/[{}<>]/g, '');

/** Classes of the theme's own colour tokens (shadcn's), which Tailwind's default theme does not know. */
const themeClass = /^(?:bg|text|border)-(?:card|muted|primary|secondary|accent|popover|destructive|foreground|background|input|ring)(?:-foreground)?$/;

/** Tailwind with shadcn/ui: the Button and Input primitives, and the theme's semantic colour tokens (bg-card, text-muted-foreground). */
function tailwindKit(context: ProjectContext, tsconfig: Tsconfig, target: string, tokens: boolean): ReactKit {
  const button = primitive(context, tsconfig, target, 'button');
  const input = primitive(context, tsconfig, target, 'input');
  const used = new Set<string>();
  // prettier-plugin-tailwindcss puts classes it does not know first: the theme's tokens, when it is not pointed at the theme.
  const known = context.style.tailwindThemeConfigured || !context.style.sortsTailwindClasses || Object.keys(context.files).some((path) => /(?:^|\/)tailwind\.config\.[cm]?[jt]s$/.test(path));
  const sorted = (classes: string): string => (known ? classes : [...classes.split(' ').filter((name) => themeClass.test(name)), ...classes.split(' ').filter((name) => !themeClass.test(name))].join(' '));
  const surface = sorted(tokens ? 'flex flex-col gap-3 rounded-lg border bg-card p-4 text-card-foreground' : 'flex flex-col gap-3 rounded-lg border border-gray-200 bg-white p-4 text-gray-900');
  const muted = tokens ? 'text-muted-foreground' : 'text-gray-500';
  const plainButton = sorted(tokens ? 'rounded-md bg-primary px-3 py-1.5 text-sm font-medium text-primary-foreground' : 'rounded-md bg-gray-900 px-3 py-1.5 text-sm font-medium text-white');
  const makeInput = (type: string, label: string, value: string, setter: string, placeholder: string | null): string => {
    const attributes = `type="${type}" aria-label="${quote(label)}" value={${value}} onChange={(event) => ${setter}(event.target.value)}${placeholder ? ` placeholder={${placeholder}}` : ''}`;
    if (!input) return `<input ${attributes} className="flex-1 rounded-md border px-3 py-1.5 text-sm" />`;
    used.add('Input');
    return `<Input ${attributes} />`;
  };
  const makeButton = (label: string, attributes: string): string => {
    if (button) {
      used.add('Button');
      return `<Button ${attributes}>${label}</Button>`;
    }
    return `<button ${attributes} className="${plainButton}">${label}</button>`;
  };
  return {
    approach: `Tailwind CSS${tokens ? ' on the theme\'s tokens (bg-card, text-muted-foreground…)' : ''}${button ? ' with the project\'s shadcn/ui primitives' : ''}`,
    imports: () => [...(used.has('Button') && button ? [{ source: button, named: ['Button'] }] : []), ...(used.has('Input') && input ? [{ source: input, named: ['Input'] }] : [])],
    root: (children) => [`<section className="${surface}">`, ...children.map((line) => `  ${line}`), '</section>'],
    title: (text) => `<h2 className="text-lg font-semibold">${quote(text)}</h2>`,
    fields: (items) => ['<dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">', ...items.flatMap(({ label, value }) => [`  <dt className="${muted}">${quote(label)}</dt>`, `  <dd>{${value}}</dd>`]), '</dl>'],
    form: (form) => [`<form className="flex items-center gap-2" onSubmit={${form.handler}}>`, `  ${makeInput(form.type, form.label, form.value, form.setter, form.placeholder)}`, `  ${makeButton(quote(form.submit), 'type="submit"')}`, '</form>'],
    line: (text) => `<p className="text-sm">${text}</p>`,
    button: (label, onClick) => makeButton(quote(label), `type="button"${button ? ' variant="outline"' : ''} onClick={${onClick}}`),
    input: (label, value, setter) => makeInput('text', label, value, setter, null),
  };
}

/** MUI on the project's theme: components imported the way its files import them (`@mui/material/Box` or `@mui/material`), sx on palette keys. */
function muiKit(context: ProjectContext): ReactKit {
  let perComponent = 0;
  let barrel = 0;
  for (const entry of Object.values(context.files)) {
    for (const fact of entry.facts?.imports ?? []) {
      if (/^@mui\/material\/[A-Z]/.test(fact.source)) perComponent += 1;
      else if (fact.source === '@mui/material') barrel += 1;
    }
  }
  const used = new Set<string>();
  const use = (name: string): string => (used.add(name), name);
  return {
    approach: 'MUI components on the theme (palette keys in sx, the theme\'s Card)',
    imports: () => (perComponent > barrel ? [...used].map((name) => ({ source: `@mui/material/${name}`, default: name })) : [{ source: '@mui/material', named: [...used].sort() }]),
    root: (children) => [`<${use('Card')} sx={{ p: 3, display: 'flex', flexDirection: 'column', gap: 2 }}>`, ...children.map((line) => `  ${line}`), '</Card>'],
    title: (text) => `<${use('Typography')} variant="h6">${quote(text)}</Typography>`,
    fields: (items) => [`<${use('Box')} component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 2, rowGap: 0.5 }}>`, ...items.flatMap(({ label, value }) => [`  <${use('Typography')} component="dt" variant="body2" sx={{ color: 'text.secondary' }}>${quote(label)}</Typography>`, `  <Typography component="dd" variant="body2" sx={{ m: 0 }}>{${value}}</Typography>`]), '</Box>'],
    form: (form) => [`<${use('Box')} component="form" onSubmit={${form.handler}} sx={{ display: 'flex', gap: 1 }}>`, `  <${use('TextField')} size="small" type="${form.type}" label="${quote(form.label)}" value={${form.value}} onChange={(event) => ${form.setter}(event.target.value)}${form.placeholder ? ` placeholder={${form.placeholder}}` : ''} />`, `  <${use('Button')} type="submit" variant="contained">${quote(form.submit)}</Button>`, '</Box>'],
    line: (text) => `<${use('Typography')} variant="body2">${text}</Typography>`,
    button: (label, onClick) => `<${use('Button')} variant="outlined" onClick={${onClick}}>${quote(label)}</Button>`,
    input: (label, value, setter) => `<${use('TextField')} size="small" label="${quote(label)}" value={${value}} onChange={(event) => ${setter}(event.target.value)} />`,
  };
}

/** Plain elements with the approach's attributes (class names of a stylesheet or CSS module, styled components, Chakra props). */
export function attributeKit(approach: string, attributes: (part: 'root' | 'title' | 'button' | 'field') => string, tags: { root: string; title: string; button: string } = { root: 'section', title: 'h2', button: 'button' }, imports: ImportSpec[] = []): ReactKit {
  const typed = /\btype=/.test(attributes('button'));
  return {
    approach,
    imports: () => imports,
    root: (children) => [`<${tags.root}${attributes('root')}>`, ...children.map((line) => `  ${line}`), `</${tags.root}>`],
    title: (text) => `<${tags.title}${attributes('title')}>${quote(text)}</${tags.title}>`,
    fields: (items) => ['<dl>', ...items.flatMap(({ label, value }) => [`  <dt>${quote(label)}</dt>`, `  <dd>{${value}}</dd>`]), '</dl>'],
    form: (form) => [`<form onSubmit={${form.handler}}>`, `  <input type="${form.type}" aria-label="${quote(form.label)}" value={${form.value}} onChange={(event) => ${form.setter}(event.target.value)}${form.placeholder ? ` placeholder={${form.placeholder}}` : ''}${attributes('field')} />`, `  <${tags.button}${attributes('button').replace(/ type="button"/, '')} type="submit">${quote(form.submit)}</${tags.button}>`, '</form>'],
    line: (text) => `<p>${text}</p>`,
    button: (label, onClick) => `<${tags.button}${typed || tags.button !== 'button' ? '' : ' type="button"'}${attributes('button')} onClick={${onClick}}>${quote(label)}</${tags.button}>`,
    input: (label, value, setter) => `<input type="text" aria-label="${quote(label)}" value={${value}} onChange={(event) => ${setter}(event.target.value)}${attributes('field')} />`,
  };
}

/** The kit for the project's theming, or null when a stylesheet-based approach applies (styling.ts decides those). */
export function themeKit(context: ProjectContext, tsconfig: Tsconfig, target: string, cssVariables: string[]): ReactKit | null {
  if (context.theming.includes('MUI theme')) return muiKit(context);
  if (context.theming.includes('Tailwind CSS')) return tailwindKit(context, tsconfig, target, cssVariables.includes('--card') || cssVariables.includes('--muted-foreground'));
  return null;
}
