// Next.js App Router endpoints: a route handler file (app/api/…/route.ts) exporting the HTTP method, written like the project's own handlers (session check, zod import style, Response or NextResponse, the status for invalid input).
import { posix } from 'node:path';
import { children } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import { allDependencies } from '../../project/detect.js';
import { aliasFor, type Tsconfig } from '../../project/tsconfig.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, parseExisting } from './ast-edit.js';
import { existsError, isConventionSource } from './conventions.js';
import { addImportEdits, importBlock, type ImportSpec } from './imports.js';
import { camelCase } from './names.js';
import { printSnippet, printSource } from './printer.js';
import type { EndpointTask, FieldSpec } from './task.js';
import { zodObject } from './validation.js';

type Handlers = { folder: string; session: { imports: ImportSpec[]; call: string } | null; zodImport: ImportSpec; nextResponse: boolean; invalidStatus: number; namedParams: boolean; asyncParams: boolean };

/** How the project's route handlers are written, from the ones it has. */
async function learn(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<Handlers> {
  const handlers = Object.keys(context.files).filter((path) => /(?:^|\/)app\/(?:.+\/)?route\.[jt]sx?$/.test(path) && isConventionSource(context, path) && !/\[\.\.\./.test(path)).sort();
  const texts = (await Promise.all(handlers.map(read))).filter((text): text is string => text !== null);
  const appRoot = handlers[0] ? (/^(.*?app)\//.exec(handlers[0])?.[1] ?? 'app') : Object.keys(context.files).some((path) => path.startsWith('src/app/')) ? 'src/app' : 'app';
  const withSession = texts.filter((text) => /getServerSession\(/.test(text));
  const sessionSource = withSession[0];
  const session = sessionSource && withSession.length * 2 >= texts.length
    ? {
      imports: [
        { source: /import\s*\{\s*getServerSession\s*\}\s*from\s*['"]([^'"]+)['"]/.exec(sessionSource)?.[1] ?? 'next-auth', named: ['getServerSession'] },
        ...(/import\s*\{\s*authOptions\s*\}\s*from\s*['"]([^'"]+)['"]/.exec(sessionSource) ? [{ source: /import\s*\{\s*authOptions\s*\}\s*from\s*['"]([^'"]+)['"]/.exec(sessionSource)?.[1] as string, named: ['authOptions'] }] : []),
      ],
      call: /getServerSession\(authOptions\)/.test(sessionSource) ? 'getServerSession(authOptions)' : 'getServerSession()',
    }
    : null;
  const star = texts.some((text) => /import\s+\*\s+as\s+z\s+from\s+['"]zod['"]/.test(text));
  const next = /^(?:\D*)(\d+)/.exec(allDependencies(context.packageJson).next ?? '')?.[1];
  return {
    folder: appRoot,
    session,
    zodImport: star ? { source: 'zod', namespace: 'z' } : { source: 'zod', named: ['z'] },
    nextResponse: texts.filter((text) => /NextResponse\.json/.test(text)).length * 2 > texts.length,
    invalidStatus: texts.some((text) => /ZodError[\s\S]{0,120}status:\s*422/.test(text)) ? 422 : 400,
    namedParams: handlers.some((path) => /\[\w+Id\]/.test(path)),
    asyncParams: next !== undefined && Number(next) >= 15,
  };
}

const hasBody = (method: string): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH';

export async function nextRouteSteps(input: { context: ProjectContext; read: (path: string) => Promise<string | null>; task: EndpointTask; tsconfig: Tsconfig; db: { name: string; path: string }; idIsNumber: boolean }): Promise<PlanStep[]> {
  const { context, read, task } = input;
  const handlers = await learn(context, read);
  const variable = camelCase(task.resource);
  const param = handlers.namedParams ? `${variable}Id` : 'id';
  const segments = task.path.split('/').filter(Boolean).map((segment) => (segment.startsWith(':') ? `[${segment.slice(1) === 'id' ? param : segment.slice(1)}]` : segment));
  const apiFirst = Object.keys(context.files).some((path) => /(?:^|\/)app\/api\//.test(path));
  if (apiFirst && segments[0] !== 'api') segments.unshift('api');
  const path = posix.join(handlers.folder, ...segments, 'route.ts');
  const paramName = /\[(\w+)\]/.exec(segments.join('/'))?.[1] ?? null;
  const dbImport: ImportSpec = { source: aliasFor(input.tsconfig, input.db.path) ?? posix.relative(posix.dirname(path), input.db.path.replace(/\.[jt]s$/, '')).replace(/^(?!\.)/, './'), named: [input.db.name] };
  const respond = (body: string, status: number): string => (handlers.nextResponse ? `NextResponse.json(${body}, { status: ${status} })` : `new Response(${body === 'null' ? 'null' : `JSON.stringify(${body})`}, { status: ${status} })`);
  const fields = task.method === 'PATCH' ? task.fields.map((field) => ({ ...field, optional: true })) : task.fields;
  const schemaName = `${variable}${task.method === 'POST' ? 'Create' : 'Update'}Schema`;
  const idValue = paramName ? (input.idIsNumber ? `Number(${paramName})` : paramName) : '';
  const data = (list: FieldSpec[]): string => `{ ${list.map((field) => `${field.name}: body.${field.name}`).join(', ')} }`;
  const lines: string[] = [];
  const signature = paramName
    ? `export async function ${task.method}(${hasBody(task.method) ? 'req' : '_req'}: Request, { params }: { params: ${handlers.asyncParams ? 'Promise<' : ''}{ ${paramName}: string }${handlers.asyncParams ? '>' : ''} }) {`
    : `export async function ${task.method}(${hasBody(task.method) ? 'req: Request' : ''}) {`;
  lines.push(signature, '  try {');
  if (handlers.session) lines.push(`    const session = await ${handlers.session.call};`, '    if (!session) {', `      return ${respond('\'Unauthorized\'', 403).replace('JSON.stringify(\'Unauthorized\')', '\'Unauthorized\'')};`, '    }');
  if (paramName) lines.push(`    const { ${paramName} } = ${handlers.asyncParams ? 'await params' : 'params'};`);
  if (hasBody(task.method)) lines.push(`    const body = ${schemaName}.parse(await req.json());`);
  const where = paramName ? `{ where: { id: ${idValue} } }` : '';
  switch (task.method) {
    case 'POST': lines.push(`    const ${variable} = await ${input.db.name}.${variable}.create({ data: ${data(fields)} });`, `    return ${respond(variable, 201)};`); break;
    case 'GET':
      if (paramName) lines.push(`    const ${variable} = await ${input.db.name}.${variable}.findUnique(${where});`, `    if (!${variable}) {`, `      return ${respond('null', 404)};`, '    }', `    return ${respond(variable, 200)};`);
      else lines.push(`    const ${variable}s = await ${input.db.name}.${variable}.findMany();`, `    return ${respond(`${variable}s`, 200)};`);
      break;
    case 'PUT': case 'PATCH': lines.push(`    const ${variable} = await ${input.db.name}.${variable}.update({ where: { id: ${idValue} }, data: ${data(fields)} });`, `    return ${respond(variable, 200)};`); break;
    case 'DELETE': lines.push(`    await ${input.db.name}.${variable}.delete(${where});`, `    return ${respond('null', 204)};`); break;
  }
  lines.push('  } catch (error) {');
  if (hasBody(task.method)) lines.push('    if (error instanceof z.ZodError) {', `      return ${respond('error.issues', handlers.invalidStatus)};`, '    }');
  lines.push(`    return ${respond('null', 500)};`, '  }', '}');
  const imports: ImportSpec[] = [...(hasBody(task.method) ? [handlers.zodImport] : []), ...(handlers.session?.imports ?? []), dbImport, ...(handlers.nextResponse ? [{ source: 'next/server', named: ['NextResponse'] }] : [])];
  const declaration = hasBody(task.method) ? `const ${schemaName} = ${zodObject(fields)};` : null;
  const existing = await read(path);
  if (existing !== null) {
    const parsed = parseExisting(path, existing);
    if (children(parsed.program, 'body').some((statement) => new RegExp(`function\\s+${task.method}\\b`).test(existing.slice(statement.start, statement.end)))) throw existsError(`${path} already exports a ${task.method} handler.`);
    const last = children(parsed.program, 'body').at(-1);
    if (!last) throw existsError(`${path} is empty.`);
    const printed = await printSnippet(path, [declaration, lines.join('\n')].filter(Boolean).join('\n\n'), context.style, '');
    const content = applyEdits(path, existing, [afterStatement(existing, parsed, last, printed), ...await addImportEdits(path, existing, parsed, imports, { ...context.style, commonjs: false })], `at the end of ${path}`);
    return [{ action: 'modify-file', path, summary: `${task.method} handler added to ${path}`, content }];
  }
  const source = [importBlock(imports, { ...context.style, commonjs: false }), '', ...(declaration ? [declaration, ''] : []), lines.join('\n'), ''].join('\n');
  return [{ action: 'create-file', path, summary: `${task.method} /${segments.join('/')}: route handler${handlers.session ? ' behind the session check' : ''}${hasBody(task.method) ? `, zod-validated body (${handlers.invalidStatus} when invalid)` : ''}, Prisma query`, content: await printSource(path, source, context.style) }];
}
