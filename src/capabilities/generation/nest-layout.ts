// Where a NestJS project keeps its feature modules and how it names them (src/modules/<name>/ or src/<names>/, singular or plural, dto/ or dtos/), the guard its controllers or routes carry (its own decorator like @Auth([RoleType.USER]), or @UseGuards(...) with passport's or its own guards), and how it marks type-only imports.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import { parseExisting } from './ast-edit.js';
import { isConventionSource } from './conventions.js';
import type { ImportSpec } from './imports.js';
import { singular } from './names.js';

/** `root`: the folder holding the feature modules' folders; `plural`: folders, files and classes named `reviews`/`ReviewsService` rather than `review`/`ReviewService`. */
export type NestLayout = { root: string; plural: boolean; dtoFolder: string };

/** A guard the project writes on its routes (`method`) or controllers (`class`, below `@Controller(...)` when `afterController`), with the imports it needs, re-aimed at any file. */
export type NestGuard = { decorator: string; level: 'method' | 'class'; afterController: boolean; imports: (from: string) => ImportSpec[] };

/** How the project's code imports what it uses only as a type (`import { type X }`, `import type { X }`), null when it does not mark them. */
export type TypeImportStyle = 'inline' | 'declaration' | null;

const count = (values: string[]): [string, number][] => {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]));
};

/** The layout of the project's feature modules (a module beside its controller, named like its folder); the root module's folder and plural names when it has none. */
export function nestLayout(context: ProjectContext, appModule: string): NestLayout {
  const features = Object.keys(context.files).filter((path) => /\.module\.ts$/.test(path) && isConventionSource(context, path)
    && context.files[path.replace(/\.module\.ts$/, '.controller.ts')] !== undefined && posix.basename(posix.dirname(path)) === posix.basename(path, '.module.ts'));
  const fallback = { root: posix.dirname(appModule), plural: true, dtoFolder: 'dto' };
  if (features.length === 0) return fallback;
  const root = count(features.map((path) => posix.dirname(posix.dirname(path))))[0]?.[0] ?? fallback.root;
  // Singular or plural is read from the modules of a resource (those with an entity: users, communication), not from auth or home.
  const resources = features.filter((path) => Object.keys(context.files).some((file) => file.startsWith(`${posix.dirname(path)}/`) && file.endsWith('.entity.ts')));
  const names = (resources.length > 0 ? resources : features).map((path) => posix.basename(posix.dirname(path)));
  const plurals = names.filter((name) => singular(name) !== name).length;
  const dtoFolders = count(Object.keys(context.files).flatMap((path) => {
    const folder = features.map((feature) => posix.dirname(feature)).find((candidate) => path.startsWith(`${candidate}/`));
    const sub = folder ? /^(dtos?)\//.exec(path.slice(folder.length + 1))?.[1] : undefined;
    return sub ? [sub] : [];
  }));
  return { root, plural: plurals * 2 >= names.length, dtoFolder: dtoFolders[0]?.[0] ?? 'dto' };
}

const httpMethods = new Set(['Get', 'Post', 'Put', 'Patch', 'Delete', 'All', 'Options', 'Head']);
const guardName = /auth|guard|role|protect|secure|jwt|permission|login/i;

/**
 * The guard decorator that most of the project's controllers carry, or most of its routes: one of its own (imported from its files,
 * named like a guard: `@Auth([RoleType.USER])` from '../../decorators') or `@UseGuards(...)` with whatever guards
 * (`@UseGuards(AuthGuard, PermissionsGuard)` from '../../common/guards/...'). Null when fewer than half are guarded that way.
 */
export async function nestGuard(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<NestGuard | null> {
  const controllers = Object.keys(context.files).filter((path) => /\.controller\.ts$/.test(path) && isConventionSource(context, path)).sort();
  const onRoutes: { text: string; file: string }[] = [];
  const onClasses: { text: string; file: string; after?: boolean }[] = [];
  let routes = 0;
  let classes = 0;
  for (const path of controllers) {
    const text = await read(path);
    if (!text) continue;
    const own = new Set((context.files[path]?.facts?.imports ?? []).filter((fact) => fact.source.startsWith('.') || /^(?:[@~#]\/|src\/)/.test(fact.source)).flatMap((fact) => fact.names));
    const guards = (node: AstNode): { text: string; start: number }[] => children(node, 'decorators').flatMap((decorator) => {
      const expression = child(decorator, 'expression');
      const callee = expression?.type === 'CallExpression' ? identifierName(child(expression, 'callee')) : identifierName(expression);
      const guard = callee === 'UseGuards' || (callee !== null && own.has(callee) && guardName.test(callee));
      return guard ? [{ text: text.slice(decorator.start, decorator.end), start: decorator.start }] : [];
    });
    let parsed;
    try {
      parsed = parseExisting(path, text);
    } catch {
      continue;
    }
    walk(parsed.program, (node) => {
      if (node.type !== 'ClassDeclaration') return;
      const isController = children(node, 'decorators').some((decorator) => identifierName(child(child(decorator, 'expression') ?? decorator, 'callee')) === 'Controller');
      if (!isController) return false;
      classes += 1;
      const controllerAt = children(node, 'decorators').find((decorator) => identifierName(child(child(decorator, 'expression') ?? decorator, 'callee')) === 'Controller')?.start ?? 0;
      onClasses.push(...guards(node).map((decorator) => ({ text: decorator.text, file: path, after: decorator.start > controllerAt })));
      for (const member of children(child(node, 'body') ?? node, 'body')) {
        const isRoute = children(member, 'decorators').some((decorator) => httpMethods.has(identifierName(child(child(decorator, 'expression') ?? decorator, 'callee')) ?? ''));
        if (!isRoute) continue;
        routes += 1;
        onRoutes.push(...guards(member).map((decorator) => ({ text: decorator.text, file: path })));
      }
      return false;
    });
  }
  const pick = (found: { text: string; file: string; after?: boolean }[], total: number, level: NestGuard['level']): NestGuard | null => {
    const [best, times] = count(found.map((entry) => entry.text))[0] ?? ['', 0];
    if (!best || times * 2 <= total) return null;
    const sample = found.find((entry) => entry.text === best) as { text: string; file: string; after?: boolean };
    return { decorator: best, level, afterController: sample.after === true, imports: importsFor(context, sample.file, best) };
  };
  return pick(onClasses, classes, 'class') ?? pick(onRoutes, routes, 'method');
}

/** The imports of the identifiers a decorator's text uses, as `file` imports them, re-aimed from another file of the project. */
function importsFor(context: ProjectContext, file: string, decorator: string): (from: string) => ImportSpec[] {
  const used = new Set(decorator.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const facts = (context.files[file]?.facts?.imports ?? []).filter((fact) => fact.kind === 'import' && fact.names.some((name) => used.has(name)));
  return (from) => facts.map((fact) => {
    const source = fact.source.startsWith('.') ? posix.relative(posix.dirname(from), posix.join(posix.dirname(file), fact.source)).replace(/^(?!\.)/, './') : fact.source;
    return { source, named: fact.names.filter((name) => used.has(name)) };
  });
}

/** Whether the project's TypeScript marks type-only imports, and how: the form more of its files use. */
export async function typeImportStyle(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<TypeImportStyle> {
  const files = Object.keys(context.files).filter((path) => /\.ts$/.test(path) && !path.endsWith('.d.ts') && isConventionSource(context, path)).sort().slice(0, 60);
  let inline = 0;
  let declaration = 0;
  for (const text of await Promise.all(files.map(read))) {
    if (/^import\s*\{[^}]*\btype\s+\w/m.test(text ?? '')) inline += 1;
    if (/^import\s+type\s*\{/m.test(text ?? '')) declaration += 1;
  }
  return inline === 0 && declaration === 0 ? null : inline >= declaration ? 'inline' : 'declaration';
}

/** An import of names used only as types, marked the way the project marks them. */
export function asTypeImport(spec: ImportSpec, style: TypeImportStyle): ImportSpec {
  if (style === 'inline') return { ...spec, named: (spec.named ?? []).map((name) => `type ${name}`) };
  return style === 'declaration' ? { ...spec, typeOnly: true } : spec;
}
