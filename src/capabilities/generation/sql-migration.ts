// Plain SQL schemas: a CREATE TABLE in the database's dialect, as a migration named the way the project's migrations are (postgrator do/undo pairs, Flyway versions, timestamps).
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import { allDependencies } from '../../project/detect.js';
import type { PlanStep } from '../plan-draft.js';
import { busiestFolder } from './conventions.js';
import { snakeCase } from './names.js';
import { tableName } from './schema-source.js';
import type { FieldSpec } from './task.js';

export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';

/** The database's dialect from the drivers the project depends on, else from its existing SQL. */
export function sqlDialect(context: ProjectContext, existingSql: string): SqlDialect {
  const dependencies = Object.keys(allDependencies(context.packageJson));
  if (dependencies.some((name) => ['mysql', 'mysql2', 'mariadb'].includes(name))) return 'mysql';
  if (dependencies.some((name) => ['pg', 'postgres', 'pg-promise', '@neondatabase/serverless', '@vercel/postgres'].includes(name))) return 'postgres';
  if (dependencies.some((name) => ['sqlite3', 'better-sqlite3', '@libsql/client'].includes(name))) return 'sqlite';
  if (/AUTO_INCREMENT/i.test(existingSql)) return 'mysql';
  if (/AUTOINCREMENT/i.test(existingSql)) return 'sqlite';
  return 'postgres';
}

const types: Record<SqlDialect, Record<FieldSpec['type'] | 'list' | 'id', string>> = {
  postgres: { id: 'SERIAL PRIMARY KEY', string: 'VARCHAR(255)', text: 'TEXT', int: 'INTEGER', number: 'DOUBLE PRECISION', boolean: 'BOOLEAN', date: 'TIMESTAMP', json: 'JSONB', handler: 'TEXT', list: 'JSONB' },
  mysql: { id: 'INT AUTO_INCREMENT PRIMARY KEY', string: 'VARCHAR(255)', text: 'TEXT', int: 'INT', number: 'DOUBLE', boolean: 'BOOLEAN', date: 'DATETIME', json: 'JSON', handler: 'TEXT', list: 'JSON' },
  sqlite: { id: 'INTEGER PRIMARY KEY AUTOINCREMENT', string: 'TEXT', text: 'TEXT', int: 'INTEGER', number: 'REAL', boolean: 'INTEGER', date: 'TEXT', json: 'TEXT', handler: 'TEXT', list: 'TEXT' },
};

/** CREATE TABLE for the fields (snake_case columns, an id, a creation time). */
export function createTableSql(name: string, fields: FieldSpec[], dialect: SqlDialect): string {
  const columns = [
    `  id ${types[dialect].id}`,
    ...fields.filter((field) => field.name !== 'id').map((field) => `  ${snakeCase(field.name)} ${field.list ? types[dialect].list : types[dialect][field.type]}${field.optional ? '' : ' NOT NULL'}`),
    `  created_at ${dialect === 'sqlite' ? 'TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP' : 'TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP'}`,
  ];
  return `CREATE TABLE ${tableName(name)} (\n${columns.join(',\n')}\n);\n`;
}

/** The migration file(s) creating the table, named and placed like the project's existing SQL migrations. */
export function sqlMigrationSteps(context: ProjectContext, name: string, fields: FieldSpec[], options: { existingSql: string; now: Date }): PlanStep[] {
  const folder = busiestFolder(context, (path) => path.endsWith('.sql'), 'migrations');
  const files = Object.keys(context.files).filter((path) => posix.dirname(path) === folder && path.endsWith('.sql')).map((path) => posix.basename(path));
  const table = tableName(name);
  const dialect = sqlDialect(context, options.existingSql);
  const create = createTableSql(name, fields, dialect);
  const summary = `${dialect === 'postgres' ? 'PostgreSQL' : dialect === 'mysql' ? 'MySQL' : 'SQLite'} table ${table}`;
  const postgrator = files.map((file) => /^(\d+)\.(?:do|undo)\.[^.]+\.sql$/.exec(file)?.[1]).filter((version): version is string => Boolean(version));
  if (postgrator.length > 0) {
    const width = (postgrator[0] as string).length;
    const version = String(Math.max(...postgrator.map(Number)) + 1).padStart(width, '0');
    return [
      { action: 'create-file', path: posix.join(folder, `${version}.do.${table}.sql`), summary: `${summary}: migration ${version}`, content: create },
      { action: 'create-file', path: posix.join(folder, `${version}.undo.${table}.sql`), summary: `undoes migration ${version}`, content: `DROP TABLE IF EXISTS ${table};\n` },
    ];
  }
  const flyway = files.map((file) => /^V(\d+)__.+\.sql$/.exec(file)?.[1]).filter((version): version is string => Boolean(version));
  if (flyway.length > 0) return [{ action: 'create-file', path: posix.join(folder, `V${Math.max(...flyway.map(Number)) + 1}__create_${table}.sql`), summary, content: create }];
  if (files.some((file) => /^\d{8,14}[_-]/.test(file))) {
    const stamp = options.now.toISOString().replace(/\D/g, '').slice(0, 14);
    return [{ action: 'create-file', path: posix.join(folder, `${stamp}_create_${table}.sql`), summary, content: create }];
  }
  return [{ action: 'create-file', path: posix.join(folder, `create_${table}.sql`), summary, content: `-- The ${table} table.\n${create}` }];
}

/** The columns a CREATE TABLE for `table` declares in the SQL (names as written, nullable when not NOT NULL), or null when none does. */
export function sqlColumns(sql: string, table: string): FieldSpec[] | null {
  const start = new RegExp(`CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?[\`"]?${table}[\`"]?\\s*\\(`, 'i').exec(sql);
  if (!start) return null;
  let depth = 1;
  let index = start.index + start[0].length;
  const body = index;
  while (index < sql.length && depth > 0) {
    if (sql[index] === '(') depth += 1;
    if (sql[index] === ')') depth -= 1;
    index += 1;
  }
  const columns: FieldSpec[] = [];
  for (const line of sql.slice(body, index - 1).split(/,\s*\n|,(?![^(]*\))/)) {
    const match = /^\s*[`"]?(\w+)[`"]?\s+(\w+)/.exec(line);
    if (!match || /^(?:PRIMARY|FOREIGN|UNIQUE|KEY|INDEX|CONSTRAINT|CHECK)$/i.test(match[1] as string)) continue;
    const type = (match[2] as string).toUpperCase();
    const kind: FieldSpec['type'] = /INT|SERIAL/.test(type) ? 'int' : /DOUBLE|REAL|FLOAT|DECIMAL|NUMERIC/.test(type) ? 'number' : /BOOL/.test(type) ? 'boolean' : /DATE|TIME/.test(type) ? 'date' : /JSON/.test(type) ? 'json' : /TEXT/.test(type) ? 'text' : 'string';
    columns.push({ name: match[1] as string, type: kind, optional: !/NOT\s+NULL|PRIMARY\s+KEY/i.test(line), list: false });
  }
  return columns;
}
