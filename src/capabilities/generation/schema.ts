// Database schema generation for the detected ORM: Prisma model, Drizzle table, Knex migration, TypeORM entity, Mongoose model, or plain SQL.
import { posix } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { readTsconfig } from '../../project/tsconfig.js';
import { busiestFolder, conventionsOf, existsError, findFile, readProjectFile } from './conventions.js';
import { formatSource } from './format.js';
import { drizzleTableStep } from './schema-drizzle.js';
import { mongooseModelSteps } from './schema-mongoose.js';
import { sequelizeModelSteps } from './schema-sequelize.js';
import { type IdKind, knexMigration, prismaModel, prismaShape, tableName } from './schema-source.js';
import { typeormEntity } from './schema-typeorm.js';
import { typeormMigration } from './typeorm-migration.js';
import { sqlMigrationSteps } from './sql-migration.js';
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

/** The database layer a schema goes to: the one the task names, else the project's most specific one (an ORM before a query builder before plain SQL). */
export function chooseOrm(context: ProjectContext, requested: string | null): string {
  const order = ['Prisma', 'Drizzle', 'TypeORM', 'Sequelize', 'Mongoose', 'MikroORM', 'Knex', 'plain SQL'];
  if (requested) return order.find((name) => name.toLowerCase() === requested.toLowerCase()) ?? requested;
  return order.find((name) => context.orm.includes(name)) ?? 'plain SQL';
}

export async function generateSchema(task: SchemaTask, options: SchemaOptions): Promise<PlanDraft> {
  const steps = await schemaSteps(task, options);
  const first = steps[0] as PlanStep;
  return { title: `Add the ${task.name} ${/table/.test(first.summary) ? 'table' : 'model'}`, steps };
}

/** The steps that add the model to the project's schema (a model file and its index, a migration pair…). */
export async function schemaSteps(task: SchemaTask, options: SchemaOptions): Promise<PlanStep[]> {
  const { context, cwd } = options;
  const conventions = conventionsOf(context);
  const orm = chooseOrm(context, task.orm ?? null);
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const exists = (): CadreError => existsError(`${task.name} already exists in the schema.`);
  if (orm === 'Prisma') {
    const path = prismaSchemaPath(context) ?? 'prisma/schema.prisma';
    const text = (await read(path)) ?? 'generator client {\n  provider = "prisma-client-js"\n}\n\ndatasource db {\n  provider = "postgresql"\n  url      = env("DATABASE_URL")\n}\n';
    const models = prismaModels(text);
    if (models.has(task.name)) throw exists();
    const id = [...models.values()][0]?.id ?? 'cuid';
    const shape = prismaShape(text);
    return [{ action: context.files[path] ? 'modify-file' : 'create-file', path, summary: `Prisma model ${task.name} (${task.fields.length} fields, ${id} id${shape.tableMap ? `, table ${tableName(task.name)}` : ''})`, content: `${text.replace(/\n*$/, '\n')}\n${prismaModel(task.name, task.fields, id, shape)}` }];
  }
  if (orm === 'Drizzle') return [(await drizzleTableStep(context, read, task.name, task.fields, conventions.typescript)).step];
  if (orm === 'TypeORM') {
    const entity = await typeormEntity(context, read, task.name, task.fields, (await readTsconfig(cwd)).options);
    const migration = await typeormMigration(context, read, entity, task.fields, (options.now ?? new Date()).getTime());
    return migration ? [entity.step, migration] : [entity.step];
  }
  if (orm === 'Mongoose') return mongooseModelSteps(context, read, task.name, task.fields, conventions.typescript);
  if (orm === 'Sequelize') return sequelizeModelSteps(context, read, task.name, task.fields, conventions);
  const migrations = Object.keys(context.files).filter((path) => /(?:^|\/)migrations?\//.test(path));
  const knexMigrations = migrations.some((path) => /\.[cm]?[jt]s$/.test(path));
  if (orm === 'Knex' && (knexMigrations || !migrations.some((path) => path.endsWith('.sql')))) {
    const folder = busiestFolder(context, (path) => /(?:^|\/)migrations\//.test(path), 'migrations');
    const stamp = (options.now ?? new Date()).toISOString().replace(/\D/g, '').slice(0, 14);
    const path = posix.join(folder, `${stamp}_create_${tableName(task.name)}.${conventions.typescript ? 'ts' : 'js'}`);
    return [{ action: 'create-file', path, summary: `Knex migration creating the ${tableName(task.name)} table`, content: formatSource(knexMigration(task.name, task.fields, { typescript: conventions.typescript }), conventions.style) }];
  }
  if (orm !== 'Knex' && orm !== 'plain SQL') {
    throw new CadreError('generation.unsupported-orm', `cadre does not generate ${orm} schemas offline.`, { remedy: 'Configure a model for this database layer, or name another one in the task (Prisma, Drizzle, TypeORM, Sequelize, Mongoose, Knex, SQL).', exitCode: exitCodes.usage });
  }
  const existingSql = (await Promise.all(migrations.filter((path) => path.endsWith('.sql')).slice(0, 5).map(read))).join('\n');
  if (new RegExp(`CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?[\`"]?${tableName(task.name)}[\`"]?\\s*\\(`, 'i').test(existingSql)) throw exists();
  return sqlMigrationSteps(context, task.name, task.fields, { existingSql, now: options.now ?? new Date() });
}
