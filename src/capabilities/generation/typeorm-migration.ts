// A TypeORM migration creating a new entity's table, for projects that keep migrations and do not synchronize the schema (run at start-up or by a script): placed and named like the project's own migrations, columns named by its naming strategy.
import { posix } from 'node:path';
import { child, identifierName, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { parseExisting } from './ast-edit.js';
import { busiestFolder, isConventionSource } from './conventions.js';
import { kebabCase, pascalCase, snakeCase } from './names.js';
import { printSource } from './printer.js';
import { sqlDialect, type SqlDialect } from './sql-migration.js';
import type { FieldSpec } from './task.js';

const columnTypes: Record<SqlDialect, Record<FieldSpec['type'] | 'list', string>> = {
  postgres: { string: 'character varying', text: 'text', int: 'integer', number: 'double precision', boolean: 'boolean', date: 'TIMESTAMP', json: 'text', handler: 'character varying', list: 'text' },
  mysql: { string: 'varchar(255)', text: 'text', int: 'int', number: 'double', boolean: 'tinyint', date: 'datetime', json: 'text', handler: 'varchar(255)', list: 'text' },
  sqlite: { string: 'varchar', text: 'text', int: 'integer', number: 'float', boolean: 'boolean', date: 'datetime', json: 'text', handler: 'varchar', list: 'text' },
};

/** What the project's TypeORM configuration says: whether it synchronizes the schema from the entities (`synchronize: true`), and whether columns are snake_cased. */
async function migrationSettings(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<{ synchronize: boolean; snake: boolean }> {
  let synchronize = false;
  let snake = false;
  for (const path of Object.keys(context.files).filter((candidate) => /\.[cm]?ts$/.test(candidate) && isConventionSource(context, candidate))) {
    const text = await read(path);
    if (!text || !/\b(?:synchronize|namingStrategy)\b/.test(text)) continue;
    try {
      walk(parseExisting(path, text).program, (node) => {
        if (node.type !== 'Property') return;
        const key = identifierName(child(node, 'key'));
        const value = child(node, 'value');
        if (key === 'synchronize' && value?.type === 'Literal' && (value as { value?: unknown }).value === true) synchronize = true;
        if (key === 'namingStrategy' && /Snake/i.test(text.slice(value?.start ?? 0, value?.end ?? 0))) snake = true;
      });
    } catch {
      continue;
    }
  }
  return { synchronize, snake };
}

/** The migration for a new entity's table, or null when the project synchronizes its schema or keeps no migrations to follow. */
export async function typeormMigration(context: ProjectContext, read: (path: string) => Promise<string | null>, entity: { className: string; table: string }, fields: FieldSpec[], now: number): Promise<PlanStep | null> {
  const settings = await migrationSettings(context, read);
  if (settings.synchronize) return null;
  const migrations = Object.entries(context.files).filter(([path, entry]) => isConventionSource(context, path) && /\.ts$/.test(path) && (entry.facts?.imports.some((fact) => fact.source === 'typeorm' && fact.names.includes('MigrationInterface')) ?? false)).map(([path]) => path).sort();
  if (migrations.length === 0) return null;
  const folder = busiestFolder(context, (path) => migrations.includes(path), posix.dirname(migrations[0] as string));
  const sample = (await read(migrations.at(-1) as string)) ?? '';
  const kebab = /^\d+-[a-z0-9-]+\.ts$/.test(posix.basename(migrations.at(-1) as string));
  const title = `Create${pascalCase(entity.table)}`;
  const className = `${title}${now}`;
  const path = posix.join(folder, `${now}-${kebab ? kebabCase(title) : title}.ts`);
  const dialect = sqlDialect(context, '');
  const quote = (name: string): string => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const column = (name: string): string => quote(settings.snake ? snakeCase(name) : name);
  const id = dialect === 'postgres' ? `${quote('id')} SERIAL NOT NULL` : dialect === 'mysql' ? `${quote('id')} int NOT NULL AUTO_INCREMENT` : `${quote('id')} integer PRIMARY KEY AUTOINCREMENT NOT NULL`;
  const columns = [
    id,
    ...fields.filter((field) => field.name !== 'id').map((field) => `${column(field.name)} ${columnTypes[dialect][field.list || field.type === 'json' ? 'list' : field.type]}${field.optional ? '' : ' NOT NULL'}`),
    `${column('createdAt')} ${dialect === 'postgres' ? 'TIMESTAMP NOT NULL DEFAULT now()' : dialect === 'mysql' ? 'datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)' : 'datetime NOT NULL DEFAULT (datetime(\'now\'))'}`,
    ...(dialect === 'sqlite' ? [] : [`CONSTRAINT ${quote(`PK_${entity.table}`)} PRIMARY KEY (${quote('id')})`]),
  ];
  // The project's own import of the two types, as its migrations write it (inline `type` or not).
  const importLine = /^import\s*\{[^}]*\bMigrationInterface\b[^}]*\}\s*from\s*['"]typeorm['"];?$/m.exec(sample)?.[0] ?? 'import { MigrationInterface, QueryRunner } from \'typeorm\';';
  const source = [
    importLine,
    '',
    `export class ${className} implements MigrationInterface {`,
    `  name = '${className}';`,
    '',
    '  public async up(queryRunner: QueryRunner): Promise<void> {',
    // One column a line, so no line outgrows a max-len rule.
    `    await queryRunner.query(\`CREATE TABLE ${quote(entity.table)} (\n${columns.map((line) => `      ${line}`).join(',\n')}\n    )\`);`,
    '  }',
    '',
    '  public async down(queryRunner: QueryRunner): Promise<void> {',
    `    await queryRunner.query(\`DROP TABLE ${quote(entity.table)}\`);`,
    '  }',
    '}',
    '',
  ].join('\n');
  return { action: 'create-file', path, summary: `migration ${className}: creates the ${entity.table} table (the project keeps its migrations in ${folder} and does not synchronize its schema)`, content: await printSource(path, source, context.style) };
}
