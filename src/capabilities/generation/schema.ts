// Database schema generation for the detected ORM: Prisma model, Drizzle table, Knex migration, TypeORM entity, Mongoose model, or plain SQL.
import { posix } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { addImports, busiestFolder, conventionsOf, findFile, readProjectFile } from './conventions.js';
import { formatSource } from './format.js';
import { fileBaseName } from './names.js';
import { type IdKind, drizzleTable, knexMigration, mongooseModel, prismaModel, sqlTable, tableName, typeormEntity } from './schema-source.js';
import type { SchemaTask } from './task.js';

export type SchemaOptions = { cwd: string; context: ProjectContext; now?: Date };

/** The models of a Prisma schema and the kind of id each uses. */
export function prismaModels(schema: string): Map<string, { id: IdKind; fields: string[] }> {
  const models = new Map<string, { id: IdKind; fields: string[] }>();
  for (const match of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const body = match[2] ?? '';
    const idLine = body.split('\n').find((line) => line.includes('@id')) ?? '';
    const id: IdKind = /\bInt\b/.test(idLine) ? 'int' : /uuid\(/.test(idLine) ? 'uuid' : 'cuid';
    const fields = body.split('\n').map((line) => /^\s*(\w+)\s+\w/.exec(line)?.[1]).filter((name): name is string => Boolean(name));
    models.set(match[1] as string, { id, fields });
  }
  return models;
}

export function prismaSchemaPath(context: ProjectContext): string | null {
  return findFile(context, (path) => /(?:^|\/)schema\.prisma$/.test(path));
}

export async function generateSchema(task: SchemaTask, options: SchemaOptions): Promise<PlanDraft> {
  const step = await schemaStep(task, options);
  return { title: `Add the ${task.name} ${step.summary.includes('table') ? 'table' : 'model'}`, steps: [step] };
}

/** The one step that adds the model to the project's schema. */
export async function schemaStep(task: SchemaTask, options: SchemaOptions): Promise<PlanStep> {
  const { context, cwd } = options;
  const conventions = conventionsOf(context);
  const orm = context.orm[0] ?? 'plain SQL';
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const exists = (): CadreError => new CadreError('generation.exists', `${task.name} already exists in the schema.`, { remedy: 'Choose another name; changing an existing model needs a model-backed task.', exitCode: exitCodes.usage });
  if (orm === 'Prisma') {
    const path = prismaSchemaPath(context) ?? 'prisma/schema.prisma';
    const text = (await read(path)) ?? 'generator client {\n  provider = "prisma-client-js"\n}\n\ndatasource db {\n  provider = "postgresql"\n  url      = env("DATABASE_URL")\n}\n';
    const models = prismaModels(text);
    if (models.has(task.name)) throw exists();
    const id = [...models.values()][0]?.id ?? 'cuid';
    return { action: context.files[path] ? 'modify-file' : 'create-file', path, summary: `Prisma model ${task.name} (${task.fields.length} fields, ${id} id)`, content: `${text.replace(/\n*$/, '\n')}\n${prismaModel(task.name, task.fields, id)}` };
  }
  if (orm === 'Drizzle') {
    const path = findFile(context, (_path, entry) => entry.facts?.imports.some((fact) => /^drizzle-orm\/(?:pg|sqlite|mysql)-core$/.test(fact.source)) ?? false) ?? `src/db/schema.${conventions.typescript ? 'ts' : 'js'}`;
    const text = (await read(path)) ?? '// The database schema.\n';
    const dialect = /sqlite-core/.test(text) || conventions.dependencies.has('better-sqlite3') ? 'sqlite' : /mysql-core/.test(text) || conventions.dependencies.has('mysql2') ? 'mysql' : 'pg';
    const { imports, table } = drizzleTable(task.name, task.fields, dialect);
    if (new RegExp(`Table\\('${tableName(task.name)}'`).test(text)) throw exists();
    const existingImport = new RegExp(`import \\{([^}]*)\\} from '${imports.split('from \'')[1]?.replace(/';$/, '')}';`).exec(text);
    let merged = text;
    if (existingImport) {
      const names = new Set([...(existingImport[1] ?? '').split(',').map((name) => name.trim()).filter(Boolean), ...(/\{([^}]*)\}/.exec(imports)?.[1] ?? '').split(',').map((name) => name.trim())]);
      merged = text.replace(existingImport[0], imports.replace(/\{[^}]*\}/, `{ ${[...names].sort().join(', ')} }`));
    } else merged = addImports(text, [formatSource(imports, conventions.style).trimEnd()]);
    return { action: context.files[path] ? 'modify-file' : 'create-file', path, summary: `Drizzle table ${tableName(task.name)}`, content: `${merged.replace(/\n*$/, '\n')}\n${formatSource(table, conventions.style)}` };
  }
  if (orm === 'Knex') {
    const folder = busiestFolder(context, (path) => /(?:^|\/)migrations\//.test(path), 'migrations');
    const stamp = (options.now ?? new Date()).toISOString().replace(/\D/g, '').slice(0, 14);
    const path = posix.join(folder, `${stamp}_create_${tableName(task.name)}.${conventions.typescript ? 'ts' : 'js'}`);
    return { action: 'create-file', path, summary: `Knex migration creating the ${tableName(task.name)} table`, content: formatSource(knexMigration(task.name, task.fields, { typescript: conventions.typescript }), conventions.style) };
  }
  if (orm === 'TypeORM' || orm === 'Mongoose') {
    const folder = busiestFolder(context, (path) => /(?:^|\/)(?:entities|entity|models)\//.test(path), orm === 'TypeORM' ? 'src/entities' : 'src/models');
    const base = orm === 'TypeORM' ? task.name : fileBaseName(task.name, context.style.fileNaming);
    const path = posix.join(folder, `${base}.${conventions.typescript ? 'ts' : 'js'}`);
    if (context.files[path]) throw exists();
    const source = orm === 'TypeORM' ? typeormEntity(task.name, task.fields) : mongooseModel(task.name, task.fields);
    return { action: 'create-file', path, summary: `${orm} ${orm === 'TypeORM' ? 'entity' : 'model'} ${task.name}`, content: formatSource(source, conventions.style) };
  }
  const folder = busiestFolder(context, (path) => path.endsWith('.sql'), 'sql');
  const path = posix.join(folder, `create_${tableName(task.name)}.sql`);
  if (context.files[path]) throw exists();
  return { action: 'create-file', path, summary: `SQL table ${tableName(task.name)}`, content: `-- The ${tableName(task.name)} table.\n${sqlTable(task.name, task.fields, 'int')}` };
}
