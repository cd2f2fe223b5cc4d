// The database query of a generated endpoint through the project's ORM (Prisma or Knex), as canonical-source statements.
import { camelCase, snakeCase } from './names.js';
import type { IdKind } from './schema-source.js';
import { tableName } from './schema-source.js';
import type { EndpointTask, FieldSpec } from './task.js';

export type Orm = 'Prisma' | 'Knex';

export type QueryPlan = {
  /** Statements that leave the result in `result` (or return early with a 404 through `notFound`). */
  lines: string[];
  /** HTTP status for success. */
  status: number;
  /** Whether the handler sends `result` (false for a 204). */
  sendsResult: boolean;
};

/**
 * `input` is the validated body variable; `notFound` is the statement that answers 404 and returns; `db` is the client's
 * local name; `param` reads a path parameter as a string.
 */
export function queryFor(task: EndpointTask, options: { orm: Orm; db: string; id: IdKind; modelFields: string[]; notFound: string; param: (name: string) => string; typed: boolean }): QueryPlan {
  const params = pathParams(task.path);
  const hasId = params.includes('id');
  const idValue = options.id === 'int' ? `Number(${options.param('id')})` : options.param('id');
  const filters = params.filter((param) => param !== 'id' && (options.orm === 'Knex' || options.modelFields.includes(param)))
    .map((param) => `${options.orm === 'Knex' ? snakeCase(param) : param}: ${options.param(param)}`);
  const delegate = `${options.db}.${camelCase(task.resource)}`;
  const table = `${options.db}('${tableName(task.resource)}')`;
  const where = (extra: string[]): string => `{ ${[...extra, ...filters].join(', ')} }`;
  const idWhere = where(hasId ? [`id: ${idValue}`] : []);
  const columns = (fields: FieldSpec[]): string => `{ ${fields.map((field) => `${snakeCase(field.name)}: input.${field.name}`).join(', ')} }`;
  if (options.orm === 'Prisma') {
    switch (task.method) {
      case 'GET':
        return hasId
          ? { lines: [`const result = await ${delegate}.findFirst({ where: ${idWhere} });`, `if (!result) ${options.notFound}`], status: 200, sendsResult: true }
          : { lines: [`const result = await ${delegate}.findMany(${filters.length > 0 ? `{ where: ${where([])} }` : ''});`], status: 200, sendsResult: true };
      case 'POST':
        return { lines: [`const result = await ${delegate}.create({ data: ${filters.length > 0 ? `{ ...input, ${filters.join(', ')} }` : 'input'} });`], status: 201, sendsResult: true };
      case 'PUT': case 'PATCH':
        return { lines: [`const existing = await ${delegate}.findFirst({ where: ${idWhere} });`, `if (!existing) ${options.notFound}`, `const result = await ${delegate}.update({ where: { id: existing.id }, data: input });`], status: 200, sendsResult: true };
      case 'DELETE':
        return { lines: [`const existing = await ${delegate}.findFirst({ where: ${idWhere} });`, `if (!existing) ${options.notFound}`, `await ${delegate}.delete({ where: { id: existing.id } });`], status: 204, sendsResult: false };
    }
  }
  switch (task.method) {
    case 'GET':
      return hasId
        ? { lines: [`const result${options.typed ? `: ${task.resource}Row | undefined` : ''} = await ${table}.where(${idWhere}).first();`, `if (!result) ${options.notFound}`], status: 200, sendsResult: true }
        : { lines: [`const result${options.typed ? `: ${task.resource}Row[]` : ''} = await ${table}${filters.length > 0 ? `.where(${where([])})` : ''}.select('*');`], status: 200, sendsResult: true };
    case 'POST':
      return { lines: [`const [result]${options.typed ? `: ${task.resource}Row[]` : ''} = await ${table}.insert(${columns(task.fields).replace(/ }$/, filters.length > 0 ? `, ${filters.join(', ')} }` : ' }')}).returning('*');`], status: 201, sendsResult: true };
    case 'PUT': case 'PATCH':
      return { lines: [`const [result]${options.typed ? `: ${task.resource}Row[]` : ''} = await ${table}.where(${idWhere}).update(${columns(task.fields)}).returning('*');`, `if (!result) ${options.notFound}`], status: 200, sendsResult: true };
    case 'DELETE':
      return { lines: [`const deleted = await ${table}.where(${idWhere}).delete();`, `if (deleted === 0) ${options.notFound}`], status: 204, sendsResult: false };
  }
}

export function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
}

export type Column = { name: string; type: string; nullable: boolean };

const knexTypes: Record<string, string> = {
  increments: 'number', bigIncrements: 'number', integer: 'number', bigInteger: 'number', tinyint: 'number', smallint: 'number', mediumint: 'number',
  float: 'number', double: 'number', decimal: 'number', boolean: 'boolean', string: 'string', text: 'string', uuid: 'string', enu: 'string', enum: 'string',
  date: 'Date', datetime: 'Date', timestamp: 'Date', time: 'string', json: 'unknown', jsonb: 'unknown', binary: 'Buffer',
};

/** The columns a Knex migration creates for `table` (`table.string('name').nullable()` …), or null when none does. */
export function knexColumns(migration: string, table: string): Column[] | null {
  const start = new RegExp(`createTable\\(\\s*['"\`]${table}['"\`]`).exec(migration);
  if (!start) return null;
  const body = migration.slice(start.index, migration.indexOf('});', start.index));
  const columns: Column[] = [];
  for (const match of body.matchAll(/\.(\w+)\(\s*['"`](\w+)['"`][^;\n]*/g)) {
    const type = knexTypes[match[1] as string];
    if (type) columns.push({ name: match[2] as string, type, nullable: /\.nullable\(\)/.test(match[0]) });
    if (match[1] === 'timestamps') columns.push({ name: 'created_at', type: 'Date', nullable: false }, { name: 'updated_at', type: 'Date', nullable: false });
  }
  return columns;
}

/** The columns of a table cadre's own migration creates for the task's fields. */
export function columnsForFields(task: EndpointTask): Column[] {
  const type = (field: FieldSpec): string => (field.list ? 'unknown' : { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'unknown', handler: 'string' }[field.type]);
  return [{ name: 'id', type: 'number', nullable: false }, ...task.fields.filter((field) => field.name !== 'id').map((field) => ({ name: snakeCase(field.name), type: type(field), nullable: field.optional })), { name: 'created_at', type: 'Date', nullable: false }];
}

/** The row type of a Knex table (snake_case columns, as the database returns them). */
export function knexRowInterface(resource: string, columns: Column[]): string {
  return `interface ${resource}Row {\n${columns.map((column) => `  ${column.name}: ${column.type}${column.nullable ? ' | null' : ''};`).join('\n')}\n}`;
}
