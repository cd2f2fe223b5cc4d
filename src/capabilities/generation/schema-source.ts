// Database schema sources for a model: Prisma model, Drizzle table, Knex migration, TypeORM entity, Mongoose schema, plain SQL.
import { camelCase, plural, snakeCase } from './names.js';
import type { FieldSpec } from './task.js';

export type IdKind = 'cuid' | 'uuid' | 'int';

/** How the schema's models map to the database: `@@map(name: "users")` / `@@map("users")` table names, snake_case `@map` for createdAt. */
export type PrismaShape = { tableMap: 'named' | 'plain' | null; snakeTimestamps: boolean };

export function prismaShape(schema: string): PrismaShape {
  const models = schema.match(/^model\s+\w+\s*\{/gm)?.length ?? 0;
  const named = schema.match(/@@map\(\s*name:/g)?.length ?? 0;
  const plain = schema.match(/@@map\(\s*"/g)?.length ?? 0;
  return { tableMap: named * 2 > models ? 'named' : plain * 2 > models ? 'plain' : null, snakeTimestamps: /createdAt\s+DateTime[^\n]*@map\(\s*(?:name:\s*)?"created_at"/.test(schema) };
}

export function prismaModel(name: string, fields: FieldSpec[], id: IdKind, shape: PrismaShape = { tableMap: null, snakeTimestamps: false }): string {
  const idLine = id === 'int' ? 'Int @id @default(autoincrement())' : `String @id @default(${id}())`;
  const prismaType = (field: FieldSpec): string => {
    const base = { string: 'String', text: 'String', int: 'Int', number: 'Float', boolean: 'Boolean', date: 'DateTime', json: 'Json', handler: 'String' }[field.type];
    return `${base}${field.list ? '[]' : field.optional ? '?' : ''}`;
  };
  const rows: [string, string][] = [['id', idLine], ...fields.filter((field) => field.name !== 'id').map((field): [string, string] => [field.name, prismaType(field)])];
  if (!fields.some((field) => field.name === 'createdAt')) rows.push(['createdAt', `DateTime @default(now())${shape.snakeTimestamps ? ' @map(name: "created_at")' : ''}`]);
  const width = Math.max(...rows.map(([field]) => field.length));
  const typeWidth = Math.max(...rows.map(([, type]) => type.split(' ')[0]?.length ?? 0));
  const row = ([field, type]: [string, string]): string => {
    const [kind, ...attributes] = type.split(/ +/);
    return `  ${field.padEnd(width)} ${attributes.length > 0 ? `${(kind ?? '').padEnd(typeWidth)} ${attributes.join(' ')}` : kind}`;
  };
  const map = shape.tableMap === 'named' ? `\n\n  @@map(name: "${tableName(name)}")` : shape.tableMap === 'plain' ? `\n\n  @@map("${tableName(name)}")` : '';
  return `model ${name} {\n${rows.map(row).join('\n')}${map}\n}\n`;
}

export function tableName(name: string): string {
  return snakeCase(plural(name));
}

const sqlTypes: Record<FieldSpec['type'], string> = { string: 'VARCHAR(255)', text: 'TEXT', int: 'INTEGER', number: 'DOUBLE PRECISION', boolean: 'BOOLEAN', date: 'TIMESTAMP', json: 'JSONB', handler: 'TEXT' };

export function sqlTable(name: string, fields: FieldSpec[], id: IdKind): string {
  const columns = [id === 'int' ? '  id SERIAL PRIMARY KEY' : '  id VARCHAR(36) PRIMARY KEY',
    ...fields.filter((field) => field.name !== 'id').map((field) => `  ${snakeCase(field.name)} ${field.list ? `${sqlTypes[field.type]}[]` : sqlTypes[field.type]}${field.optional || field.list ? '' : ' NOT NULL'}`),
    '  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP'];
  return `CREATE TABLE ${tableName(name)} (\n${columns.join(',\n')}\n);\n`;
}

/** A Knex migration (canonical source) creating the table; columns in snake_case. */
export function knexMigration(name: string, fields: FieldSpec[], options: { typescript: boolean }): string {
  const column = (field: FieldSpec): string => {
    const method = field.list ? 'jsonb' : { string: 'string', text: 'text', int: 'integer', number: 'double', boolean: 'boolean', date: 'timestamp', json: 'jsonb', handler: 'text' }[field.type];
    return `    table.${method}('${snakeCase(field.name)}')${field.optional ? '.nullable()' : '.notNullable()'};`;
  };
  const typed = options.typescript;
  return [
    `// Creates the ${tableName(name)} table.`,
    typed ? 'import type { Knex } from \'knex\';' : '',
    '',
    `export async function up(knex${typed ? ': Knex' : ''})${typed ? ': Promise<void>' : ''} {`,
    `  await knex.schema.createTable('${tableName(name)}', (table) => {`,
    '    table.increments(\'id\').primary();',
    ...fields.filter((field) => field.name !== 'id').map(column),
    '    table.timestamp(\'created_at\').notNullable().defaultTo(knex.fn.now());',
    '  });',
    '}',
    '',
    `export async function down(knex${typed ? ': Knex' : ''})${typed ? ': Promise<void>' : ''} {`,
    `  await knex.schema.dropTable('${tableName(name)}');`,
    '}',
    '',
  ].filter((line, index) => index !== 1 || typed).join('\n');
}

/** A Drizzle table (canonical source) for Postgres, SQLite or MySQL. */
export function drizzleTable(name: string, fields: FieldSpec[], dialect: 'pg' | 'sqlite' | 'mysql'): { imports: string; table: string } {
  const table = `${camelCase(plural(name))}`;
  const builders = dialect === 'pg'
    ? { module: 'drizzle-orm/pg-core', table: 'pgTable', id: 'serial(\'id\').primaryKey()', string: 'varchar', text: 'text', int: 'integer', number: 'doublePrecision', boolean: 'boolean', date: 'timestamp', json: 'jsonb' }
    : dialect === 'mysql'
      ? { module: 'drizzle-orm/mysql-core', table: 'mysqlTable', id: 'serial(\'id\').primaryKey()', string: 'varchar', text: 'text', int: 'int', number: 'double', boolean: 'boolean', date: 'timestamp', json: 'json' }
      : { module: 'drizzle-orm/sqlite-core', table: 'sqliteTable', id: 'integer(\'id\').primaryKey({ autoIncrement: true })', string: 'text', text: 'text', int: 'integer', number: 'real', boolean: 'integer', date: 'integer', json: 'text' };
  const used = new Set<string>([builders.table, builders.id.split('(')[0] as string]);
  const column = (field: FieldSpec): string => {
    const kind = field.type === 'handler' ? 'text' : field.type;
    const builder = builders[kind];
    used.add(builder);
    const options = builder === 'varchar' ? ', { length: 255 }' : dialect === 'sqlite' && kind === 'boolean' ? ', { mode: \'boolean\' }' : dialect === 'sqlite' && kind === 'date' ? ', { mode: \'timestamp\' }' : '';
    return `  ${field.name}: ${builder}('${snakeCase(field.name)}'${options})${field.optional ? '' : '.notNull()'},`;
  };
  const columns = fields.filter((field) => field.name !== 'id').map(column);
  return {
    imports: `import { ${[...used].sort().join(', ')} } from '${builders.module}';`,
    table: `export const ${table} = ${builders.table}('${tableName(name)}', {\n  id: ${builders.id},\n${columns.join('\n')}\n});\n`,
  };
}

/** A Mongoose schema and model (canonical source). */
export function mongooseModel(name: string, fields: FieldSpec[]): string {
  const type = (field: FieldSpec): string => {
    const base = { string: 'String', text: 'String', int: 'Number', number: 'Number', boolean: 'Boolean', date: 'Date', json: 'Schema.Types.Mixed', handler: 'String' }[field.type];
    return field.list ? `[${base}]` : base;
  };
  return [
    `// The ${name} collection.`,
    'import { Schema, model } from \'mongoose\';',
    '',
    `const ${camelCase(name)}Schema = new Schema({`,
    ...fields.map((field) => `  ${field.name}: { type: ${type(field)}, required: ${!field.optional} },`),
    '}, { timestamps: true });',
    '',
    `export const ${name} = model('${name}', ${camelCase(name)}Schema);`,
    '',
  ].join('\n');
}

/** A TypeORM entity (canonical source). */
export function typeormEntity(name: string, fields: FieldSpec[]): string {
  const column = (field: FieldSpec): string[] => {
    const ts = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'Record<string, unknown>', handler: 'string' }[field.type];
    const options = [field.type === 'text' ? 'type: \'text\'' : field.type === 'json' ? 'type: \'json\'' : field.list ? 'type: \'simple-array\'' : '', field.optional ? 'nullable: true' : ''].filter(Boolean).join(', ');
    return [`  @Column(${options ? `{ ${options} }` : ''})`, `  ${field.name}${field.optional ? '?' : '!'}: ${ts}${field.list ? '[]' : ''};`, ''];
  };
  return [
    `// The ${name} entity.`,
    'import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from \'typeorm\';',
    '',
    '@Entity()',
    `export class ${name} {`,
    '  @PrimaryGeneratedColumn()',
    '  id!: number;',
    '',
    ...fields.filter((field) => field.name !== 'id').flatMap(column),
    '  @CreateDateColumn()',
    '  createdAt!: Date;',
    '}',
    '',
  ].join('\n');
}
