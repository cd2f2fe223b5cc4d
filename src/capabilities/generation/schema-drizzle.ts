// Drizzle tables in the schema file's own shape: the column-builder callback (`pgTable("post", (t) => ({ … }))`) or column imports, table naming, the id and timestamp columns, and an insert schema when the file exports them.
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, parseExisting } from './ast-edit.js';
import { existsError, findFile } from './conventions.js';
import { addImportEdits, type ImportSpec } from './imports.js';
import { camelCase, plural, snakeCase } from './names.js';
import { printSnippet, printSource } from './printer.js';
import { drizzleTable } from './schema-source.js';
import type { FieldSpec } from './task.js';
import { children } from '../../project/ast.js';

type Dialect = 'pg' | 'mysql' | 'sqlite';

const callbackColumns: Record<Dialect, Record<FieldSpec['type'], string>> = {
  pg: { string: 'varchar({ length: 256 })', text: 'text()', int: 'integer()', number: 'doublePrecision()', boolean: 'boolean()', date: 'timestamp()', json: 'jsonb()', handler: 'text()' },
  mysql: { string: 'varchar({ length: 256 })', text: 'text()', int: 'int()', number: 'double()', boolean: 'boolean()', date: 'timestamp()', json: 'json()', handler: 'text()' },
  sqlite: { string: 'text()', text: 'text()', int: 'integer()', number: 'real()', boolean: 'integer({ mode: "boolean" })', date: 'integer({ mode: "timestamp" })', json: 'text({ mode: "json" })', handler: 'text()' },
};

/** The schema file and the table it gains, or a new schema file when the project has none. */
export async function drizzleTableStep(context: ProjectContext, read: (path: string) => Promise<string | null>, name: string, fields: FieldSpec[], typescript: boolean): Promise<{ step: PlanStep; variable: string; insertSchema: string | null; path: string }> {
  const path = findFile(context, (_path, entry) => entry.facts?.imports.some((fact) => /^drizzle-orm\/(?:pg|sqlite|mysql)-core$/.test(fact.source) && fact.names.some((name) => /Table(?:Creator)?$/.test(name))) ?? false) ?? `src/db/schema.${typescript ? 'ts' : 'js'}`;
  const text = await read(path);
  const dialect: Dialect = /sqlite-core/.test(text ?? '') ? 'sqlite' : /mysql-core/.test(text ?? '') ? 'mysql' : 'pg';
  // A file that makes its tables with a table creator (create-t3-app's `createTable = pgTableCreator(...)`) gets its table from the creator.
  const creator = text ? /export\s+const\s+(\w+)\s*=\s*(?:pg|mysql|sqlite)TableCreator\(/.exec(text)?.[1] : undefined;
  const builder = creator ?? { pg: 'pgTable', mysql: 'mysqlTable', sqlite: 'sqliteTable' }[dialect];
  const callback = text ? new RegExp(`${builder}\\(\\s*['"](\\w+)['"]\\s*,\\s*\\((\\w+)\\)\\s*=>`).exec(text) : null;
  if (!text || !callback) {
    const { imports, table } = drizzleTable(name, fields, dialect);
    const variable = camelCase(plural(name));
    if (text && new RegExp(`Table\\(\\s*['"]${snakeCase(plural(name))}['"]`).test(text)) throw existsError(`The ${snakeCase(plural(name))} table already exists in ${path}.`);
    const named = (/\{([^}]*)\}/.exec(imports)?.[1] ?? '').split(',').map((item) => item.trim()).filter(Boolean);
    const spec: ImportSpec = { source: `drizzle-orm/${dialect}-core`, named };
    if (!text) return { path, variable, insertSchema: null, step: { action: 'create-file', path, summary: `Drizzle table ${snakeCase(plural(name))}`, content: await printSource(path, `${imports}\n\n${table}`, context.style) } };
    return { path, variable, insertSchema: null, step: await appendTable(context, path, text, table, [spec], `Drizzle table ${snakeCase(plural(name))}`) };
  }
  // Learned from the file's first table: table names singular or plural, variables PascalCase or camelCase, the id and timestamp lines.
  const firstTable = callback[1] as string;
  const param = callback[2] as string;
  const variableOfFirst = new RegExp(`export\\s+const\\s+(\\w+)\\s*=\\s*${builder}\\(\\s*['"]${firstTable}['"]`).exec(text)?.[1] ?? firstTable;
  const singularTables = !/s$/.test(firstTable);
  const table = singularTables ? snakeCase(name) : snakeCase(plural(name));
  const variable = /^[A-Z]/.test(variableOfFirst) ? (singularTables ? name : plural(name)) : camelCase(singularTables ? name : plural(name));
  if (new RegExp(`${builder}\\(\\s*['"]${table}['"]`).test(text) || new RegExp(`export\\s+const\\s+${variable}\\b`).test(text)) throw existsError(`The ${table} table already exists in ${path}.`);
  const idLine = new RegExp(`^\\s*id:\\s*${param}\\.[^\\n]*,$`, 'm').exec(text)?.[0].trim() ?? `id: ${param}.${dialect === 'sqlite' ? 'integer().primaryKey({ autoIncrement: true })' : 'serial().primaryKey()'},`;
  const createdLine = new RegExp(`^\\s*createdAt:\\s*${param}\\.[^\\n]*,$`, 'm').exec(text)?.[0].trim();
  const columns = fields.filter((field) => field.name !== 'id').map((field) => `  ${field.name}: ${param}.${field.list ? (dialect === 'pg' ? 'jsonb()' : 'json()') : callbackColumns[dialect][field.type]}${field.optional ? '' : '.notNull()'},`);
  const lines = [`export const ${variable} = ${builder}("${table}", (${param}) => ({`, `  ${idLine}`, ...columns, ...(createdLine && !fields.some((field) => field.name === 'createdAt') ? [`  ${createdLine}`] : []), '}));'];
  // Projects that export a drizzle-zod insert schema per table (CreatePostSchema) get one for the new table, omitting generated columns.
  const insertPattern = /export\s+const\s+Create(\w+)Schema\s*=\s*createInsertSchema\(/.exec(text);
  let insertSchema: string | null = null;
  if (insertPattern) {
    insertSchema = `Create${name}Schema`;
    const generated = ['id', ...(createdLine ? ['createdAt'] : [])];
    lines.push('', `export const ${insertSchema} = createInsertSchema(${variable}).omit({`, ...generated.map((column) => `  ${column}: true,`), '});');
  }
  return { path, variable, insertSchema, step: await appendTable(context, path, text, lines.join('\n'), [], `Drizzle table ${table} (${variable})${insertSchema ? ` and ${insertSchema}` : ''}`) };
}

/** The table goes after the file's last table or schema, before its re-exports; imports merge into the existing ones. */
async function appendTable(context: ProjectContext, path: string, text: string, table: string, imports: ImportSpec[], summary: string): Promise<PlanStep> {
  const parsed = parseExisting(path, text);
  const statements = children(parsed.program, 'body');
  const anchor = [...statements].reverse().find((statement) => statement.type === 'ExportNamedDeclaration' && children(statement, 'specifiers').length === 0) ?? statements.at(-1);
  if (!anchor) return { action: 'modify-file', path, summary, content: `${text}${await printSource(path, table, context.style)}` };
  const printed = await printSnippet(path, table, context.style, '');
  const content = applyEdits(path, text, [afterStatement(text, parsed, anchor, printed), ...await addImportEdits(path, text, parsed, imports, { ...context.style, commonjs: false })], `in ${path}, after its last table`);
  return { action: 'modify-file', path, summary, content };
}
