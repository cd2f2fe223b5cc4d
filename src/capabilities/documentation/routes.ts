// The HTTP routes as the app serves them: routers mounted under paths (app.use('/v1', routes), registries of { path, route }), NestJS's global prefix and URI versions, Fastify's autoloaded folders, Next.js route handler files.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, parseSource, staticString, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import { resolveImport } from '../../project/resolve.js';
import { autoloadRoutesFolder } from '../generation/fastify-autoload.js';
import { nestUrl } from '../generation/nest.js';
import { readNestMain } from '../generation/nest-prefix.js';
import { isTestFile, type RouteDoc } from './facts.js';

/** Every route with its full path; `mountedAt` says where a router's own paths come from. */
export async function httpRoutes(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<(RouteDoc & { mountedAt?: string })[]> {
  const files = new Set(Object.keys(context.files));
  const mounts = new Map<string, { prefix: string; parent: string }>();
  for (const [path, entry] of Object.entries(context.files)) {
    if (isTestFile(path) || !entry.facts || !/\.[cm]?[jt]sx?$/.test(path)) continue;
    const text = await read(path);
    if (!text || !/\.use\(|\broute\s*:/.test(text)) continue;
    const parsed = safeParse(path, text);
    if (!parsed) continue;
    const bindings = importedFiles(parsed, path, files);
    walk(parsed, (node) => {
      // app.use('/v1', routes) and router.use('/users', userRoute)
      if (node.type === 'CallExpression') {
        const callee = child(node, 'callee');
        const [first, second] = children(node, 'arguments');
        const prefix = staticString(first ?? null);
        const target = identifierName(second ?? null);
        if (callee?.type === 'MemberExpression' && identifierName(child(callee, 'property')) === 'use' && prefix?.startsWith('/') && target && bindings.get(target)) mounts.set(bindings.get(target) as string, { prefix, parent: path });
      }
      // { path: '/auth', route: authRoute } in a registry that is mounted with router.use(route.path, route.route)
      if (node.type === 'ObjectExpression') {
        const property = (name: string): AstNode | null => child(children(node, 'properties').find((candidate) => identifierName(child(candidate, 'key')) === name) ?? node, 'value');
        const prefix = staticString(property('path'));
        const target = identifierName(property('route'));
        if (prefix?.startsWith('/') && target && bindings.get(target)) mounts.set(bindings.get(target) as string, { prefix, parent: path });
      }
    });
  }
  const prefixOf = (file: string, depth = 0): string => {
    const mount = mounts.get(file);
    return mount && depth < 10 ? `${prefixOf(mount.parent, depth + 1)}${mount.prefix === '/' ? '' : mount.prefix}` : '';
  };
  const nest = await nestPrefix(context, read);
  const autoload = context.frameworks.includes('Fastify') ? await autoloadRoutesFolder(context, read) : null;
  const routes: (RouteDoc & { mountedAt?: string })[] = [];
  for (const [file, entry] of Object.entries(context.files)) {
    if (isTestFile(file)) continue;
    for (const route of entry.facts?.routes ?? []) {
      if (route.framework === 'nest') {
        routes.push({ method: route.method, path: nestUrl(nest.prefix, nest.uriVersioning ? route.version ?? null : null, route.path), file, line: route.line });
        continue;
      }
      const folderPrefix = autoload && file.startsWith(`${autoload}/`) ? `/${posix.dirname(file.slice(autoload.length + 1))}`.replace(/\/\.$/, '') : '';
      const prefix = `${prefixOf(file)}${folderPrefix}`;
      const full = `${prefix}${route.path === '/' && prefix ? '' : route.path}` || '/';
      routes.push({ method: route.method, path: full, file, line: route.line, ...(prefix ? { mountedAt: prefix } : {}) });
    }
    const handler = /(?:^|\/)app\/(.*?)\/?route\.[jt]sx?$/.exec(file);
    if (handler) {
      const segments = (handler[1] ?? '').split('/').filter((segment) => segment && !/^\(.*\)$/.test(segment)).map((segment) => segment.replace(/^\[\.{3}(\w+)\]$/, '*$1').replace(/^\[(\w+)\]$/, ':$1'));
      for (const method of entry.facts?.exports.filter((name) => /^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/.test(name)) ?? []) {
        routes.push({ method, path: `/${segments.join('/')}`, file, line: entry.facts?.symbols.find((symbol) => symbol.name === method)?.line ?? 1 });
      }
    }
  }
  return routes.sort((left, right) => left.path.localeCompare(right.path) || left.method.localeCompare(right.method));
}

function safeParse(path: string, text: string): AstNode | null {
  try {
    return parseSource(path, text)?.program ?? null;
  } catch {
    return null;
  }
}

/** Local names bound by imports or requires of project files, to the file they come from. */
function importedFiles(program: AstNode, path: string, files: ReadonlySet<string>): Map<string, string> {
  const bindings = new Map<string, string>();
  for (const statement of children(program, 'body')) {
    if (statement.type === 'ImportDeclaration') {
      const target = resolveImport(path, staticString(child(statement, 'source')) ?? '', files);
      if (!target) continue;
      for (const specifier of children(statement, 'specifiers')) {
        const local = identifierName(child(specifier, 'local'));
        if (local) bindings.set(local, target);
      }
    }
    if (statement.type === 'VariableDeclaration') {
      for (const declarator of children(statement, 'declarations')) {
        const init = child(declarator, 'init');
        const local = identifierName(child(declarator, 'id'));
        if (init?.type === 'CallExpression' && identifierName(child(init, 'callee')) === 'require' && local) {
          const target = resolveImport(path, staticString(children(init, 'arguments')[0] ?? null) ?? '', files);
          if (target) bindings.set(local, target);
        }
      }
    }
  }
  return bindings;
}

/** NestJS's global prefix (a literal, or the fallback of the config value it reads) and whether versions go in the URI. */
async function nestPrefix(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<{ prefix: string | null; uriVersioning: boolean }> {
  if (!context.frameworks.includes('NestJS')) return { prefix: null, uriVersioning: false };
  const main = Object.keys(context.files).find((path) => /(?:^|\/)main\.ts$/.test(path) && !isTestFile(path));
  const text = main ? (await read(main)) ?? '' : '';
  const setup = readNestMain(main ?? 'src/main.ts', text);
  let prefix = setup.prefix;
  if (!prefix && setup.computedPrefix) {
    for (const path of Object.keys(context.files).filter((candidate) => /config/.test(candidate) && candidate.endsWith('.ts'))) {
      prefix = /API_PREFIX\s*(?:\|\||\?\?)\s*['"]([^'"]+)['"]/.exec((await read(path)) ?? '')?.[1] ?? prefix;
    }
  }
  return { prefix, uriVersioning: setup.uriVersioning };
}
