// TypeORM entities where the project's configuration loads them: the entity globs read from the code, an existing entity's shape (class suffix, table naming, validators), and the path mirrored from it.
import { posix } from 'node:path';
import picomatch from 'picomatch';
import { type AstNode, child, identifierName, staticString, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { CompilerOptions } from '../../project/tsconfig.js';
import type { PlanStep } from '../plan-draft.js';
import { parseExisting } from './ast-edit.js';
import { existsError, isConventionSource } from './conventions.js';
import { camelCase, kebabCase, plural, snakeCase } from './names.js';
import { printSource } from './printer.js';
import type { FieldSpec } from './task.js';

export type TypeormEntity = { path: string; className: string; table: string; step: PlanStep };

/** Entity globs the project's TypeORM configuration names (`entities: [__dirname + '/../**\/*.entity{.ts,.js}']`, `"src/entity/**\/*.ts"`), project-relative. */
export async function entityGlobs(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<string[]> {
  const globs: string[] = [];
  for (const [path, entry] of Object.entries(context.files)) {
    if (!isConventionSource(context, path) || !/\.[cm]?[jt]s$/.test(path)) continue;
    const text = await read(path);
    if (!text || !/entit/i.test(text) || !entry.facts) continue;
    walk(parseExisting(path, text).program, (node) => {
      const glob = globOf(node, posix.dirname(path));
      if (glob && /entit/i.test(glob) && /\*/.test(glob) && !glob.startsWith('dist/')) globs.push(glob);
      return node.type !== 'BinaryExpression';
    });
  }
  return [...new Set(globs)];
}

function globOf(node: AstNode, folder: string): string | null {
  const literal = staticString(node);
  if (literal !== null) return literal.replace(/^\.\//, '');
  if (node.type === 'BinaryExpression' && node.operator === '+' && identifierName(child(node, 'left')) === '__dirname') {
    const rest = staticString(child(node, 'right'));
    return rest === null ? null : posix.normalize(posix.join(folder, rest));
  }
  return null;
}

type Shape = { suffix: string; tableStyle: 'name-option' | 'argument' | 'none'; pluralTables: boolean; definite: boolean; validators: boolean };

function learnShape(text: string, options: CompilerOptions): Shape {
  const className = /export\s+class\s+(\w+)/.exec(text)?.[1] ?? '';
  const table = /@Entity\(\s*\{[^}]*\bname\s*:\s*['"](\w+)['"]/.exec(text)?.[1] ?? /@Entity\(\s*['"](\w+)['"]/.exec(text)?.[1] ?? null;
  const strict = options.strict === true && (options as { strictPropertyInitialization?: boolean }).strictPropertyInitialization !== false;
  return {
    suffix: className.endsWith('Entity') ? 'Entity' : '',
    tableStyle: /@Entity\(\s*\{/.test(text) ? 'name-option' : /@Entity\(\s*['"]/.test(text) ? 'argument' : 'none',
    pluralTables: table ? /s$/.test(table) : true,
    definite: /^\s+\w+!:/m.test(text) || (strict && !/^\s+\w+:\s/m.test(text)),
    validators: /from\s+['"]class-validator['"]/.test(text),
  };
}

const columnType: Record<FieldSpec['type'], { ts: string; option: string }> = {
  string: { ts: 'string', option: '' }, text: { ts: 'string', option: 'type: \'text\'' }, int: { ts: 'number', option: 'type: \'int\'' }, number: { ts: 'number', option: 'type: \'float\'' },
  boolean: { ts: 'boolean', option: '' }, date: { ts: 'Date', option: '' }, json: { ts: 'Record<string, unknown>', option: 'type: \'simple-json\'' }, handler: { ts: 'string', option: '' },
};

const validatorOf: Record<FieldSpec['type'], string> = { string: 'Length(1, 255)', text: 'IsString()', int: 'IsInt()', number: 'IsNumber()', boolean: 'IsBoolean()', date: 'IsDate()', json: 'IsObject()', handler: 'IsString()' };

/** The entity file for `name`, placed and shaped like the project's existing entities, where its entity globs find it. */
export async function typeormEntity(context: ProjectContext, read: (path: string) => Promise<string | null>, name: string, fields: FieldSpec[], options: CompilerOptions): Promise<TypeormEntity> {
  const globs = await entityGlobs(context, read);
  const loaded = globs.length > 0 ? picomatch(globs) : null;
  const entities = Object.entries(context.files)
    .filter(([path, entry]) => isConventionSource(context, path) && /\.ts$/.test(path) && (entry.facts?.imports.some((fact) => fact.source === 'typeorm' && fact.names.includes('Entity')) ?? false))
    .map(([path]) => path)
    .sort();
  // A module's own entity (src/modules/post/post.entity.ts) is the one to mirror, not a second entity kept in its folder (post-translation.entity.ts).
  const own = (path: string): boolean => posix.basename(path).split('.')[0] === posix.basename(posix.dirname(path));
  const template = entities.find((path) => loaded?.(path) && own(path)) ?? entities.find((path) => loaded?.(path)) ?? entities.find(own) ?? entities[0];
  const text = template ? (await read(template)) ?? '' : '';
  const shape = learnShape(text, options);
  const className = `${name}${shape.suffix}`;
  const table = shape.pluralTables ? snakeCase(plural(name)) : snakeCase(name);
  const path = template ? mirrorPath(template, /export\s+class\s+(\w+)/.exec(text)?.[1]?.replace(/Entity$/, '') ?? '', name) : 'src/entities/' + `${kebabCase(name)}.entity.ts`;
  if (context.files[path]) throw existsError(`${path} already exists.`);
  if (loaded && !loaded(path)) {
    throw existsError(`cadre would write the ${name} entity to ${path}, which the project's entity globs (${globs.join(', ')}) do not load.`);
  }
  const decorators = new Set(['Column', 'CreateDateColumn', 'Entity', 'PrimaryGeneratedColumn']);
  const validators = new Set<string>();
  const mark = shape.definite ? '!' : '';
  const body: string[] = ['  @PrimaryGeneratedColumn()', `  id${mark}: number;`, ''];
  for (const field of fields.filter((candidate) => candidate.name !== 'id')) {
    const type = columnType[field.type];
    const optionParts = [field.list ? 'type: \'simple-array\'' : type.option, field.optional ? 'nullable: true' : ''].filter(Boolean);
    body.push(`  @Column(${optionParts.length > 0 ? `{ ${optionParts.join(', ')} }` : ''})`);
    if (shape.validators) {
      const rule = field.list ? 'IsArray()' : validatorOf[field.type];
      validators.add(rule.split('(')[0] as string);
      if (field.optional) validators.add('IsOptional');
      body.push(...(field.optional ? ['  @IsOptional()'] : []), `  @${rule}`);
    }
    body.push(`  ${field.name}${field.optional ? '?' : mark}: ${type.ts}${field.list ? '[]' : ''}${field.optional ? ' | null' : ''};`, '');
  }
  body.push('  @CreateDateColumn()', `  createdAt${mark}: Date;`);
  const entity = shape.tableStyle === 'name-option' ? `@Entity({ name: '${table}' })` : shape.tableStyle === 'argument' ? `@Entity('${table}')` : '@Entity()';
  const source = [
    `import { ${[...decorators].sort().join(', ')} } from 'typeorm';`,
    ...(validators.size > 0 ? [`import { ${[...validators].sort().join(', ')} } from 'class-validator';`] : []),
    '',
    entity,
    `export class ${className} {`,
    ...body,
    '}',
    '',
  ].join('\n');
  const step: PlanStep = { action: 'create-file', path, summary: `TypeORM entity ${className} (table ${table}${globs.length > 0 ? `, loaded by ${globs[0]}` : ''})`, content: await printSource(path, source, context.style) };
  return { path, className, table, step };
}

/** The template's path with its resource swapped: src/users/…/user.entity.ts → src/reviews/…/review.entity.ts, src/entity/user.ts → src/entity/review.ts. */
function mirrorPath(template: string, templateName: string, name: string): string {
  const word = camelCase(templateName);
  const parts = template.split('/');
  const file = parts.pop() as string;
  const folders = parts.map((part) => (part === kebabCase(plural(templateName)) || part === plural(word) ? kebabCase(plural(name)) : part === kebabCase(templateName) ? kebabCase(name) : part));
  const base = file.split('.')[0] ?? '';
  const renamed = base === kebabCase(templateName) ? kebabCase(name) : base === word ? camelCase(name) : base === templateName ? name : kebabCase(name);
  return [...folders, `${renamed}${file.slice(base.length)}`].join('/');
}
