// NestJS's global prefix and URI versioning, read from main.ts's syntax tree (a commented-out setGlobalPrefix does not count).
import { child, children, memberPath, parseSource, staticString, walk } from '../../project/ast.js';

export type NestMain = {
  /** The prefix as setGlobalPrefix gets it, without leading or trailing slashes; null when there is none or it is not a literal. */
  prefix: string | null;
  /** setGlobalPrefix is called with something other than a literal (a config value). */
  computedPrefix: boolean;
  uriVersioning: boolean;
};

/** What main.ts sets up, from the code only: comments and strings are not calls. */
export function readNestMain(path: string, text: string): NestMain {
  const result: NestMain = { prefix: null, computedPrefix: false, uriVersioning: false };
  const parsed = text ? parseSource(path, text) : null;
  if (!parsed) return result;
  walk(parsed.program, (node) => {
    if (node.type === 'CallExpression') {
      const callee = memberPath(child(node, 'callee'));
      if (callee?.endsWith('.setGlobalPrefix')) {
        const literal = staticString(children(node, 'arguments')[0] ?? null);
        if (literal === null) result.computedPrefix = true;
        else result.prefix = literal.replace(/^\/+|\/+$/g, '') || null;
      }
    }
    if (node.type === 'MemberExpression' && memberPath(node) === 'VersioningType.URI') result.uriVersioning = true;
  });
  return result;
}
