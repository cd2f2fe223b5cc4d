// Request validation for generated endpoints: a zod object (when the project has zod), a JSON schema for Fastify, or a hand-written check.
import { pascalCase } from './names.js';
import type { FieldSpec } from './task.js';

export function zodObject(fields: FieldSpec[]): string {
  const one = (field: FieldSpec): string => {
    const base = { string: 'z.string().min(1)', text: 'z.string()', int: 'z.number().int()', number: 'z.number()', boolean: 'z.boolean()', date: 'z.coerce.date()', json: 'z.record(z.string(), z.unknown())', handler: 'z.string()' }[field.type];
    const list = field.list ? `z.array(${base})` : base;
    return `${field.name}: ${list}${field.optional ? '.optional()' : ''}`;
  };
  return `z.object({ ${fields.map(one).join(', ')} })`;
}

export function jsonSchemaObject(fields: FieldSpec[]): string {
  const one = (field: FieldSpec): string => {
    const base = { string: '{ type: \'string\', minLength: 1 }', text: '{ type: \'string\' }', int: '{ type: \'integer\' }', number: '{ type: \'number\' }', boolean: '{ type: \'boolean\' }', date: '{ type: \'string\', format: \'date-time\' }', json: '{ type: \'object\' }', handler: '{ type: \'string\' }' }[field.type];
    return `${field.name}: ${field.list ? `{ type: 'array', items: ${base} }` : base}`;
  };
  const required = fields.filter((field) => !field.optional).map((field) => `'${field.name}'`);
  return `{ type: 'object', required: [${required.join(', ')}], properties: { ${fields.map(one).join(', ')} }, additionalProperties: false } as const`;
}

export function inputInterface(name: string, fields: FieldSpec[]): string {
  const type = (field: FieldSpec): string => {
    const base = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'string', json: 'Record<string, unknown>', handler: 'string' }[field.type];
    return field.list ? `${base.includes(' ') ? `Array<${base}>` : `${base}[]`}` : base;
  };
  return `interface ${name} {\n${fields.map((field) => `  ${field.name}${field.optional ? '?' : ''}: ${type(field)};`).join('\n')}\n}`;
}

/** Statements collecting `issues` for a request body held in `body` (an object of unknown values), one `if` per field. */
export function fieldChecks(fields: FieldSpec[], typed: boolean, body = 'body'): string[] {
  const check = (field: FieldSpec): string => {
    const test = { string: 'typeof value === \'string\' && value.length > 0', text: 'typeof value === \'string\'', int: 'Number.isInteger(value)', number: 'typeof value === \'number\'', boolean: 'typeof value === \'boolean\'', date: 'typeof value === \'string\' && !Number.isNaN(Date.parse(value))', json: 'typeof value === \'object\' && value !== null', handler: 'typeof value === \'string\'' }[field.type];
    const value = `${body}.${field.name}`;
    const condition = field.list ? `Array.isArray(${value}) && ${value}.every((value${typed ? ': unknown' : ''}) => ${test})` : test.replaceAll('value', value);
    return `if (${field.optional ? `${value} !== undefined && ` : ''}!(${condition})) issues.push('${field.name} must be ${describeType(field)}');`;
  };
  return [`const issues${typed ? ': string[]' : ''} = [];`, ...fields.map(check)];
}

/** The request body as an object of unknown values, for `fieldChecks`. */
export function bodyRecord(expression: string, typed: boolean): string {
  return `(typeof ${expression} === 'object' && ${expression} !== null ? ${expression} : {})${typed ? ' as Record<string, unknown>' : ''}`;
}

/** A canonical-source Express middleware checking each field's type by hand (projects without zod). */
export function handValidator(resource: string, fields: FieldSpec[], typed: boolean): string {
  return [
    `function validate${pascalCase(resource)}(req${typed ? ': Request' : ''}, res${typed ? ': Response' : ''}, next${typed ? ': NextFunction' : ''})${typed ? ': void' : ''} {`,
    `  const body = ${bodyRecord('req.body', typed)};`,
    ...fieldChecks(fields, typed).map((line) => `  ${line}`),
    '  if (issues.length > 0) {',
    '    res.status(400).json({ error: \'Invalid request body\', issues });',
    '    return;',
    '  }',
    '  next();',
    '}',
  ].join('\n');
}

function describeType(field: FieldSpec): string {
  const one = { string: 'a non-empty string', text: 'a string', int: 'an integer', number: 'a number', boolean: 'true or false', date: 'a date', json: 'an object', handler: 'a string' }[field.type];
  return field.list ? `a list of ${one.replace(/^an? /, '')}s` : one;
}
