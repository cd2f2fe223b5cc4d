// NestJS endpoints: a resource module (controller, service on a TypeORM repository, DTOs) registered in the root module, in the shape the project's own controllers have (versioning, Swagger, guards); routes added to an existing resource's controller and service.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import { type CompilerOptions } from '../../project/tsconfig.js';
import type { PlanStep } from '../plan-draft.js';
import { appendElement, applyEdits, parseExisting } from './ast-edit.js';
import { addMember } from './class-edit.js';
import { conventionsOf, existsError, missingFieldsError, findFile, importSpecifier, isConventionSource } from './conventions.js';
import { addImportEdits, importBlock, type ImportSpec } from './imports.js';
import { asTypeImport, nestGuard, nestLayout, type TypeImportStyle, typeImportStyle } from './nest-layout.js';
import { readNestMain } from './nest-prefix.js';
import { camelCase, kebabCase, plural } from './names.js';
import { printSource } from './printer.js';
import { typeormEntity } from './schema-typeorm.js';
import { typeormMigration } from './typeorm-migration.js';
import type { EndpointTask, FieldSpec } from './task.js';

/** `now`: the migration's timestamp (milliseconds), the time of the draft unless given. */
export type NestInput = { context: ProjectContext; read: (path: string) => Promise<string | null>; task: EndpointTask; compilerOptions: CompilerOptions; now?: number };

/** `guard`: decorators on the controller class (`class`) or on each route (`method`), and their imports as seen from a given file. */
type Guard = { decorators: string[]; level: 'class' | 'method'; afterController: boolean; imports: (from: string) => ImportSpec[] };
/** `typeImports`: how the project's code imports what it uses only as a type (`import { type X }`, `import type { X }`), null when it does not mark them. */
type Conventions = { version: string | null; swagger: boolean; guard: Guard | null; prefix: string | null; definite: boolean; typeImports: TypeImportStyle };

type RelativeImport = (from: string, to: string) => string;

/** How a file of the project imports another: with the extension its own relative imports carry (none, '.js' or '.ts'). */
const relativeImportIn = (context: ProjectContext): RelativeImport => {
  const conventions = conventionsOf(context);
  return (from, to) => importSpecifier(from, to, conventions);
};

/** How the project's controllers look, read from them and from main.ts. */
async function learn(context: ProjectContext, read: (path: string) => Promise<string | null>, options: CompilerOptions): Promise<Conventions> {
  const controllers = Object.keys(context.files).filter((path) => /\.controller\.ts$/.test(path) && isConventionSource(context, path)).sort();
  let version: string | null = null;
  let guarded = 0;
  let guardText: string | null = null;
  for (const path of controllers) {
    const text = (await read(path)) ?? '';
    version ??= /@Controller\(\s*\{[^}]*\bversion\s*:\s*['"](\w+)['"]/.exec(text)?.[1] ?? null;
    const guard = /@UseGuards\(AuthGuard\((['"])jwt\1\)[^)]*\)\s*(?:@\w+\([^)]*\)\s*)*@Controller/.exec(text);
    if (guard) {
      guarded += 1;
      guardText ??= text;
    }
  }
  const main = findFile(context, (path) => /(?:^|\/)main\.ts$/.test(path));
  const mainText = main ? (await read(main)) ?? '' : '';
  const setup = readNestMain(main ?? 'src/main.ts', mainText);
  let prefix = setup.prefix;
  if (!prefix && setup.computedPrefix) {
    for (const path of Object.keys(context.files).filter((candidate) => /config/.test(candidate) && candidate.endsWith('.ts'))) {
      const fallback = /API_PREFIX\s*(?:\|\||\?\?)\s*['"]([^'"]+)['"]/.exec((await read(path)) ?? '')?.[1];
      if (fallback) prefix = fallback;
    }
  }
  const swagger = controllers.length > 0 && (context.files[controllers[0] as string]?.facts?.imports.some((fact) => fact.source === '@nestjs/swagger') ?? false);
  const bearer = guardText !== null && /@ApiBearerAuth\(\)/.test(guardText);
  const own = await nestGuard(context, read);
  const guard: Guard | null = guarded * 2 > controllers.length && guardText
    ? { decorators: [...(bearer ? ['@ApiBearerAuth()'] : []), '@UseGuards(AuthGuard(\'jwt\'))'], level: 'class', afterController: false, imports: () => [{ source: '@nestjs/passport', named: ['AuthGuard'] }, { source: '@nestjs/common', named: ['UseGuards'] }, ...(bearer ? [{ source: '@nestjs/swagger', named: ['ApiBearerAuth'] }] : [])] }
    : own ? { decorators: [own.decorator], level: own.level, afterController: own.afterController, imports: own.imports } : null;
  const strictInit = options.strict === true && (options as { strictPropertyInitialization?: boolean }).strictPropertyInitialization !== false;
  return { version: setup.uriVersioning ? version : null, swagger, guard, prefix, definite: strictInit, typeImports: await typeImportStyle(context, read) };
}

const validators: Record<FieldSpec['type'], string[]> = {
  string: ['IsString()', 'IsNotEmpty()'], text: ['IsString()'], int: ['IsInt()'], number: ['IsNumber()'], boolean: ['IsBoolean()'],
  date: ['IsDateString()'], json: ['IsObject()'], handler: ['IsString()'],
};
const tsTypes: Record<FieldSpec['type'], string> = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'string', json: 'Record<string, unknown>', handler: 'string' };
const examples: Record<FieldSpec['type'], string> = { string: '\'example\'', text: '\'example\'', int: '1', number: '1.5', boolean: 'true', date: '\'2024-01-01T00:00:00.000Z\'', json: '{}', handler: '\'example\'' };

/** The served URL of a route: global prefix, URI version, controller path. */
export function nestUrl(prefix: string | null, version: string | null, path: string): string {
  return `/${[prefix?.replace(/^\/+|\/+$/g, ''), version ? `v${version}` : null, path.replace(/^\/+|\/+$/g, '')].filter(Boolean).join('/')}`;
}

export async function nestEndpointSteps(input: NestInput): Promise<{ steps: PlanStep[]; url: string }> {
  const { context, read, task } = input;
  const relativeImport = relativeImportIn(context);
  const conventions = await learn(context, read, input.compilerOptions);
  const segments = task.path.split('/').filter(Boolean);
  // A path given with the global prefix or version (/api/v1/reviews) means the same controller path.
  while (segments[0] && (segments[0] === conventions.prefix || segments[0] === `v${conventions.version}`)) segments.shift();
  const resourceAt = segments.map((segment) => !segment.startsWith(':')).lastIndexOf(true);
  const controllerPath = segments.slice(0, resourceAt + 1).join('/');
  const methodPath = segments.slice(resourceAt + 1).join('/');
  const appModule = findFile(context, (path) => /(?:^|\/)app\.module\.ts$/.test(path)) ?? 'src/app.module.ts';
  // Where and how the project's own feature modules are kept: src/modules/review/ with dtos/ and ReviewService, or src/reviews/ with dto/ and ReviewsService.
  const layout = nestLayout(context, appModule);
  const plurals = layout.plural ? plural(task.resource) : task.resource;
  const resource = kebabCase(plurals);
  const folder = posix.join(layout.root, resource);
  const className = { controller: `${plurals}Controller`, service: `${plurals}Service`, module: `${plurals}Module`, create: `Create${task.resource}Dto`, update: `Update${task.resource}Dto` };
  const paths = { controller: posix.join(folder, `${resource}.controller.ts`), service: posix.join(folder, `${resource}.service.ts`), module: posix.join(folder, `${resource}.module.ts`), create: posix.join(folder, layout.dtoFolder, `create-${kebabCase(task.resource)}.dto.ts`), update: posix.join(folder, layout.dtoFolder, `update-${kebabCase(task.resource)}.dto.ts`) };
  const url = nestUrl(conventions.prefix, conventions.version, `${controllerPath}${methodPath ? `/${methodPath}` : ''}`);
  const steps: PlanStep[] = [];
  const entityPath = Object.keys(context.files).find((path) => new RegExp(`(?:^|/)${kebabCase(task.resource)}\\.entity\\.ts$`).test(path));
  let entity: { path: string; className: string };
  if (entityPath) entity = { path: entityPath, className: /export\s+class\s+(\w+)/.exec((await read(entityPath)) ?? '')?.[1] ?? `${task.resource}Entity` };
  else {
    if (task.fields.length === 0) throw missingFieldsError(task.resource, 'entity', task);
    const created = await typeormEntity(context, read, task.resource, task.fields, input.compilerOptions);
    steps.push(created.step);
    const migration = await typeormMigration(context, read, created, task.fields, input.now ?? Date.now());
    if (migration) steps.push(migration);
    entity = created;
  }
  const fields = task.fields.filter((field) => field.name !== 'id');
  const routed = guardRoute(methodSource(task, { ...className, entity: entity.className, service: camelCase(className.service) }, methodPath, relativeImport), conventions.guard);
  // The service uses its DTOs only as parameter types (the controller's @Body() needs them as values, for validation).
  const method: Method = { ...routed, serviceImports: (from, paths, entityPath) => routed.serviceImports(from, paths, entityPath).map((spec) => (/\.dto(?:\.[jt]s)?$/.test(spec.source) ? asTypeImport(spec, conventions.typeImports) : spec)) };
  const existingController = await read(paths.controller);
  if (existingController !== null) {
    const entityImport = method.controller.includes(entity.className) ? [asTypeImport({ source: relativeImport(paths.controller, entity.path), named: [entity.className] }, conventions.typeImports)] : [];
    steps.push(await addMember(context, paths.controller, existingController, method.controller, mergeCommon([...method.controllerImports(paths.controller, paths), ...entityImport])));
    const service = await read(paths.service);
    if (service === null) throw existsError(`${paths.controller} exists but ${paths.service} does not; cadre adds routes only to resources shaped like the ones it generates.`);
    if (!new RegExp(`\\b${method.serviceName}\\(`).test(service)) steps.push(await addMember(context, paths.service, service, method.service, mergeCommon(method.serviceImports(paths.service, paths, entity.path))));
    if (method.dto === 'update' && (await read(paths.update)) === null) steps.push(await dtoStep(context, paths.update, className.update, className.create, fields, conventions, 'update'));
    return { steps, url };
  }
  if (method.dto !== null) steps.push(await dtoStep(context, paths.create, className.create, null, fields, conventions, 'create'));
  if (method.dto === 'update') steps.push(await dtoStep(context, paths.update, className.update, className.create, fields, conventions, 'update'));
  steps.push(await serviceStep(context, paths, className, entity, method));
  steps.push(await controllerStep(context, paths, className, entity, method, conventions, controllerPath));
  steps.push({ action: 'create-file', path: paths.module, summary: `${className.module}: the controller, the service and the ${entity.className} repository`, content: await printSource(paths.module, [
    importBlock([{ source: '@nestjs/common', named: ['Module'] }, { source: '@nestjs/typeorm', named: ['TypeOrmModule'] }, { source: relativeImport(paths.module, entity.path), named: [entity.className] }, { source: relativeImport(paths.module, paths.controller), named: [className.controller] }, { source: relativeImport(paths.module, paths.service), named: [className.service] }], { ...context.style, commonjs: false }),
    '',
    '@Module({',
    `  imports: [TypeOrmModule.forFeature([${entity.className}])],`,
    `  controllers: [${className.controller}],`,
    `  providers: [${className.service}],`,
    `  exports: [${className.service}],`,
    '})',
    `export class ${className.module} {}`,
    '',
  ].join('\n'), context.style) });
  steps.push(await registerModule(context, read, appModule, className.module, relativeImport(appModule, paths.module)));
  return { steps, url };
}

type Method = { controller: string; service: string; serviceName: string; dto: 'create' | 'update' | null; controllerImports: (from: string, paths: Record<string, string>) => ImportSpec[]; serviceImports: (from: string, paths: Record<string, string>, entityPath: string) => ImportSpec[] };

function methodSource(task: EndpointTask, names: { controller: string; service: string; create: string; update: string; entity: string }, methodPath: string, relativeImport: RelativeImport): Method {
  const variable = camelCase(task.resource);
  const route = methodPath ? `'${methodPath}'` : '';
  const idParam = '@Param(\'id\', ParseIntPipe) id: number';
  // The repository the service's constructor declares (reviewsRepository in ReviewsService, reviewRepository in ReviewService).
  const repository = `this.${names.service.replace(/Service$/, '')}Repository`;
  const common = (extra: string[]): ImportSpec[] => [{ source: '@nestjs/common', named: extra }];
  switch (task.method) {
    case 'POST':
      return { serviceName: 'create', dto: 'create',
        controller: `@Post(${route})\n@HttpCode(HttpStatus.CREATED)\ncreate(@Body() ${variable}Dto: ${names.create}): Promise<${names.entity}> {\n  return this.${names.service}.create(${variable}Dto);\n}`,
        service: `create(${variable}Dto: ${names.create}): Promise<${names.entity}> {\n  return ${repository}.save(${repository}.create(${variable}Dto));\n}`,
        controllerImports: (from, paths) => [...common(['Body', 'HttpCode', 'HttpStatus', 'Post']), { source: relativeImport(from, paths.create as string), named: [names.create] }],
        serviceImports: (from, paths) => [{ source: relativeImport(from, paths.create as string), named: [names.create] }] };
    case 'GET':
      return methodPath.includes(':id')
        ? { serviceName: 'findOne', dto: null,
          controller: `@Get(${route})\nfindOne(${idParam}): Promise<${names.entity}> {\n  return this.${names.service}.findOne(id);\n}`,
          service: `async findOne(id: number): Promise<${names.entity}> {\n  const ${variable} = await ${repository}.findOne({ where: { id } });\n\n  if (!${variable}) {\n    throw new NotFoundException(\`${task.resource} \${id} not found\`);\n  }\n\n  return ${variable};\n}`,
          controllerImports: () => common(['Get', 'Param', 'ParseIntPipe']),
          serviceImports: () => common(['NotFoundException']) }
        : { serviceName: 'findAll', dto: null,
          controller: `@Get(${route})\nfindAll(): Promise<${names.entity}[]> {\n  return this.${names.service}.findAll();\n}`,
          service: `findAll(): Promise<${names.entity}[]> {\n  return ${repository}.find();\n}`,
          controllerImports: () => common(['Get']), serviceImports: () => [] };
    case 'PUT': case 'PATCH':
      return { serviceName: 'update', dto: 'update',
        controller: `@${task.method === 'PUT' ? 'Put' : 'Patch'}(${route})\nupdate(${idParam}, @Body() ${variable}Dto: ${names.update}): Promise<${names.entity}> {\n  return this.${names.service}.update(id, ${variable}Dto);\n}`,
        service: `async update(id: number, ${variable}Dto: ${names.update}): Promise<${names.entity}> {\n  const ${variable} = await ${repository}.findOne({ where: { id } });\n\n  if (!${variable}) {\n    throw new NotFoundException(\`${task.resource} \${id} not found\`);\n  }\n\n  return ${repository}.save({ ...${variable}, ...${variable}Dto });\n}`,
        controllerImports: (from, paths) => [...common(['Body', 'Param', 'ParseIntPipe', task.method === 'PUT' ? 'Put' : 'Patch']), { source: relativeImport(from, paths.update as string), named: [names.update] }],
        serviceImports: (from, paths) => [...common(['NotFoundException']), { source: relativeImport(from, paths.update as string), named: [names.update] }] };
    case 'DELETE':
      return { serviceName: 'remove', dto: null,
        controller: `@Delete(${route})\n@HttpCode(HttpStatus.NO_CONTENT)\nremove(${idParam}): Promise<void> {\n  return this.${names.service}.remove(id);\n}`,
        service: `async remove(id: number): Promise<void> {\n  const result = await ${repository}.delete(id);\n\n  if (result.affected === 0) {\n    throw new NotFoundException(\`${task.resource} \${id} not found\`);\n  }\n}`,
        controllerImports: () => common(['Delete', 'HttpCode', 'HttpStatus', 'Param', 'ParseIntPipe']), serviceImports: () => common(['NotFoundException']) };
  }
}

async function dtoStep(context: ProjectContext, path: string, className: string, base: string | null, fields: FieldSpec[], conventions: Conventions, kind: 'create' | 'update'): Promise<PlanStep> {
  const mark = conventions.definite ? '!' : '';
  if (kind === 'update' && base) {
    const mapped = conventions.swagger ? '@nestjs/swagger' : '@nestjs/mapped-types';
    const source = [importBlock([{ source: mapped, named: ['PartialType'] }, { source: relativeImportIn(context)(path, posix.join(posix.dirname(path), posix.basename(path).replace('update-', 'create-'))), named: [base] }], { ...context.style, commonjs: false }), '', `export class ${className} extends PartialType(${base}) {}`, ''].join('\n');
    return { action: 'create-file', path, summary: `${className}: every field of ${base}, optional`, content: await printSource(path, source, context.style) };
  }
  const used = new Set<string>();
  const members = fields.flatMap((field) => {
    const rules = field.list ? ['IsArray()'] : validators[field.type];
    for (const rule of rules) used.add(rule.split('(')[0] as string);
    if (field.optional) used.add('IsOptional');
    const api = conventions.swagger ? [`@Api${field.optional ? 'PropertyOptional' : 'Property'}({ example: ${field.list ? `[${examples[field.type]}]` : examples[field.type]} })`] : [];
    return [...api, ...(field.optional ? ['@IsOptional()'] : []), ...rules.map((rule) => `@${rule}`), `${field.name}${field.optional ? '?' : mark}: ${tsTypes[field.type]}${field.list ? '[]' : ''};`, ''];
  });
  const swagger = [...new Set(fields.map((field) => (field.optional ? 'ApiPropertyOptional' : 'ApiProperty')))];
  const source = [
    importBlock([...(conventions.swagger ? [{ source: '@nestjs/swagger', named: swagger.sort() }] : []), { source: 'class-validator', named: [...used].sort() }], { ...context.style, commonjs: false }),
    '',
    `export class ${className} {`,
    ...members.slice(0, -1).map((line) => (line ? `  ${line}` : line)),
    '}',
    '',
  ].join('\n');
  return { action: 'create-file', path, summary: `${className}: ${fields.map((field) => field.name).join(', ')}, validated with class-validator`, content: await printSource(path, source, context.style) };
}

async function serviceStep(context: ProjectContext, paths: Record<string, string>, names: Record<string, string>, entity: { path: string; className: string }, method: Method): Promise<PlanStep> {
  const repository = `${camelCase((names.service as string).replace(/Service$/, ''))}Repository`;
  const path = paths.service as string;
  const relativeImport = relativeImportIn(context);
  const common = method.serviceImports(path, paths, entity.path).filter((spec) => spec.source === '@nestjs/common').flatMap((spec) => spec.named ?? []);
  const source = [
    importBlock([{ source: '@nestjs/common', named: ['Injectable', ...common] }, { source: '@nestjs/typeorm', named: ['InjectRepository'] }, { source: 'typeorm', named: ['Repository'] }, { source: relativeImport(path, entity.path), named: [entity.className] }, ...method.serviceImports(path, paths, entity.path).filter((spec) => spec.source !== '@nestjs/common')], { ...context.style, commonjs: false }),
    '',
    '@Injectable()',
    `export class ${names.service} {`,
    '  constructor(',
    `    @InjectRepository(${entity.className})`,
    `    private readonly ${repository}: Repository<${entity.className}>,`,
    '  ) {}',
    '',
    method.service.split('\n').map((line) => `  ${line}`).join('\n'),
    '}',
    '',
  ].join('\n');
  return { action: 'create-file', path, summary: `${names.service}: ${method.serviceName} on the ${entity.className} repository`, content: await printSource(path, source, context.style) };
}

async function controllerStep(context: ProjectContext, paths: Record<string, string>, names: Record<string, string>, entity: { path: string; className: string }, method: Method, conventions: Conventions, controllerPath: string): Promise<PlanStep> {
  const path = paths.controller as string;
  const relativeImport = relativeImportIn(context);
  const service = camelCase(names.service as string);
  const controller = conventions.version ? `@Controller({ path: '${controllerPath}', version: '${conventions.version}' })` : `@Controller('${controllerPath}')`;
  const imports: ImportSpec[] = [{ source: '@nestjs/common', named: ['Controller'] }, ...method.controllerImports(path, paths), { source: relativeImport(path, paths.service as string), named: [names.service as string] }, ...(conventions.swagger ? [{ source: '@nestjs/swagger', named: ['ApiTags'] }] : []), ...(conventions.guard?.level === 'class' ? conventions.guard.imports(path) : [])];
  // The controller names the entity only in return types.
  if (method.controller.includes(entity.className)) imports.push(asTypeImport({ source: relativeImport(path, entity.path), named: [entity.className] }, conventions.typeImports));
  const source = [
    importBlock(mergeCommon(imports), { ...context.style, commonjs: false }),
    '',
    ...(conventions.guard?.level === 'class' && !conventions.guard.afterController ? conventions.guard.decorators : []),
    ...(conventions.swagger ? [`@ApiTags('${(names.service as string).replace(/Service$/, '')}')`] : []),
    controller,
    ...(conventions.guard?.level === 'class' && conventions.guard.afterController ? conventions.guard.decorators : []),
    `export class ${names.controller} {`,
    `  constructor(private readonly ${service}: ${names.service}) {}`,
    '',
    method.controller.split('\n').map((line) => `  ${line}`).join('\n'),
    '}',
    '',
  ].join('\n');
  return { action: 'create-file', path, summary: `${names.controller}: ${method.serviceName}${conventions.guard ? `, behind ${conventions.guard.decorators.at(-1)} like the project's other ${conventions.guard.level === 'class' ? 'controllers' : 'routes'}` : ''}`, content: await printSource(path, source, context.style) };
}

/** A route guarded the way the project guards each of its routes: its decorator after the HTTP method's, its imports added. */
function guardRoute(method: Method, guard: Guard | null): Method {
  if (guard?.level !== 'method') return method;
  const [first, ...rest] = method.controller.split('\n');
  return { ...method, controller: [first, ...guard.decorators, ...rest].join('\n'), controllerImports: (from, paths) => [...method.controllerImports(from, paths), ...guard.imports(from)] };
}

function mergeCommon(specs: ImportSpec[]): ImportSpec[] {
  const common = [...new Set(specs.filter((spec) => spec.source === '@nestjs/common').flatMap((spec) => spec.named ?? []))].sort();
  return [{ source: '@nestjs/common', named: common }, ...specs.filter((spec) => spec.source !== '@nestjs/common')];
}

/** The module joins the root module's `imports` array. */
async function registerModule(context: ProjectContext, read: (path: string) => Promise<string | null>, appModule: string, moduleClass: string, specifier: string): Promise<PlanStep> {
  const text = await read(appModule);
  if (text === null) throw existsError(`cadre found no root module (${appModule}) to register ${moduleClass} in.`);
  const parsed = parseExisting(appModule, text);
  let imports: AstNode | null = null;
  walk(parsed.program, (node) => {
    if (imports || node.type !== 'Decorator') return;
    const call = child(node, 'expression');
    if (call?.type !== 'CallExpression' || identifierName(child(call, 'callee')) !== 'Module') return;
    const options = children(call, 'arguments')[0];
    const property = options?.type === 'ObjectExpression' ? children(options, 'properties').find((candidate) => identifierName(child(candidate, 'key')) === 'imports') : undefined;
    const value = property ? child(property, 'value') : null;
    if (value?.type === 'ArrayExpression') imports = value;
  });
  if (!imports) throw existsError(`${appModule} has no @Module({ imports: [...] }) to add ${moduleClass} to; add it there by hand.`);
  const edits = [appendElement(text, parsed, imports, moduleClass), ...await addImportEdits(appModule, text, parsed, [{ source: specifier, named: [moduleClass] }], { ...context.style, commonjs: false })];
  const content = applyEdits(appModule, text, edits, `to the imports of @Module in ${appModule}`);
  return { action: 'modify-file', path: appModule, summary: `register ${moduleClass} in the root module's imports`, content };
}
