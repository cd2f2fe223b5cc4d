// Field types of generated code: TypeScript types, sample values for tests, labels for people.
import type { FieldSpec } from './task.js';
import { wordsOf } from './names.js';

const baseTypes: Record<FieldSpec['type'], string> = {
  string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'Record<string, unknown>', handler: '() => void',
};

export function tsType(field: FieldSpec): string {
  const base = baseTypes[field.type];
  return field.list ? (base.includes(' ') ? `Array<${base}>` : `${base}[]`) : base;
}

/** "createdAt" → "Created at". */
export function labelOf(name: string): string {
  const words = wordsOf(name).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A canonical-source literal for a field in tests: strings name their field so assertions can find them. */
export function sampleValue(field: FieldSpec): string {
  const one = ((): string => {
    switch (field.type) {
      case 'string': case 'text': return `'sample ${wordsOf(field.name).join(' ')}'`;
      case 'int': case 'number': return '3';
      case 'boolean': return 'true';
      case 'date': return 'new Date(\'2024-01-02T00:00:00Z\')';
      case 'json': return '{}';
      case 'handler': return '() => undefined';
    }
  })();
  return field.list ? `[${one}]` : one;
}

/** The rendered text a sample value shows up as, when it is plain text (for assertions). */
export function sampleText(field: FieldSpec): string | null {
  if (field.type === 'string' || field.type === 'text') return `sample ${wordsOf(field.name).join(' ')}`;
  if (field.type === 'int' || field.type === 'number') return field.list ? null : '3';
  return null;
}
