// Parsing JS/TS/JSX/TSX (and the scripts of Vue and Svelte components) with oxc-parser, and walking the tree.
import { parseSync, visitorKeys } from 'oxc-parser';
import { CadreError } from '../errors.js';

/** An ESTree node as oxc-parser returns it; fields are read with the helpers below. */
export type AstNode = { type: string; start: number; end: number } & Record<string, unknown>;

export type ParsedSource = {
  program: AstNode;
  /** Offset of the script inside the file (non-zero for Vue/Svelte script blocks). */
  offset: number;
  errors: string[];
  /** Comments with offsets relative to the script (add `offset` for file offsets). */
  comments: { type: 'Line' | 'Block'; value: string; start: number; end: number }[];
};

const scriptExtensions = /\.(?:[cm]?[jt]sx?)$/;
const componentExtensions = /\.(?:vue|svelte)$/;

export function isScriptPath(path: string): boolean {
  return scriptExtensions.test(path) && !path.endsWith('.d.ts');
}

export function isParsablePath(path: string): boolean {
  return isScriptPath(path) || componentExtensions.test(path);
}

/** Parses a script or the first `<script>` block of a component; null when the file has no script. */
export function parseSource(path: string, text: string): ParsedSource | null {
  let source = text;
  let offset = 0;
  let filename = path;
  if (componentExtensions.test(path)) {
    const match = /<script\b([^>]*)>([\s\S]*?)<\/script>/.exec(text);
    if (!match) return null;
    const attributes = match[1] ?? '';
    const lang = /lang=["'](tsx?|jsx?)["']/.exec(attributes)?.[1] ?? 'js';
    source = match[2] ?? '';
    offset = match.index + match[0].indexOf('>') + 1;
    filename = `component.${lang}`;
  } else if (/\.[cm]?js$/.test(path) && /<[A-Za-z][\w.]*[\s/>]/.test(text)) {
    // Plain .js files often hold JSX (Create React App, older projects).
    filename = `${path}x`;
  }
  const depth = bracketDepth(source, maxParseDepth);
  if (depth > maxParseDepth) {
    throw new CadreError('parse.too-deep', `${path} nests brackets more than ${maxParseDepth} deep; the parser would run out of stack on it.`, {
      remedy: 'Such nesting is generated code: leave the file out, or analyse the source it was generated from.',
    });
  }
  const result = parseSync(filename, source, { sourceType: 'unambiguous' });
  return {
    program: result.program as unknown as AstNode,
    offset,
    errors: result.errors.map((error) => error.message),
    comments: result.comments,
  };
}

/**
 * oxc-parser recurses natively: some 6,000 nested parentheses or 3,500 nested functions overflow its stack and kill the
 * process (SIGSEGV) before any error can be caught. No handwritten code nests a thousand deep, so deeper files are refused.
 */
export const maxParseDepth = 1_000;

/** How deep ( [ { and template `${` nest, outside strings and comments (regular expressions are read as code: a bracket in one counts, harmlessly); stops counting past `limit`. */
export function bracketDepth(source: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  /** Each open bracket, and `` ` `` for the template a `${` was opened in. */
  const open: string[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    const next = source[index + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', index);
      index = end === -1 ? source.length : end;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', index + 2);
      index = end === -1 ? source.length : end + 2;
    } else if (char === '"' || char === "'") {
      index = skipString(source, index + 1, char);
    } else if (char === '`' || (char === '}' && open.at(-1) === '`')) {
      if (char === '}') {
        open.pop();
        depth -= 1;
      }
      index = skipTemplate(source, index + 1);
      if (source.startsWith('${', index - 2) && index <= source.length) {
        open.push('`');
        depth += 1;
      }
    } else {
      if (char === '(' || char === '[' || char === '{') {
        open.push(char);
        depth += 1;
      } else if ((char === ')' || char === ']' || char === '}') && depth > 0) {
        open.pop();
        depth -= 1;
      }
      index += 1;
    }
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
  }
  return deepest;
}

function skipString(source: string, from: number, quote: string): number {
  let index = from;
  while (index < source.length && source[index] !== quote && source[index] !== '\n') index += source[index] === '\\' ? 2 : 1;
  return index + 1;
}

/** Past the template's text: to just after its closing backtick, or just after the `${` that opens an expression. */
function skipTemplate(source: string, from: number): number {
  let index = from;
  while (index < source.length) {
    const char = source[index];
    if (char === '\\') index += 2;
    else if (char === '`') return index + 1;
    else if (char === '$' && source[index + 1] === '{') return index + 2;
    else index += 1;
  }
  return index;
}

export function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** A tree in depth-first order: each node, its depth, and the index just past its subtree. */
type FlatTree = { nodes: AstNode[]; depths: number[]; ends: number[] };

/** Flattened once per root: the analyses walk the same program several times, and an array walk is far cheaper than recursion over keys. */
const flattened = new WeakMap<AstNode, FlatTree>();

function flatten(root: AstNode): FlatTree {
  const tree: FlatTree = { nodes: [], depths: [], ends: [] };
  const visit = (node: AstNode, depth: number): void => {
    const index = tree.nodes.length;
    tree.nodes.push(node);
    tree.depths.push(depth);
    tree.ends.push(0);
    const keys = visitorKeys[node.type];
    if (keys) {
      for (const key of keys) {
        const child = node[key];
        if (Array.isArray(child)) {
          for (const item of child) if (isNode(item)) visit(item, depth + 1);
        } else if (isNode(child)) {
          visit(child, depth + 1);
        }
      }
    }
    tree.ends[index] = tree.nodes.length;
  };
  visit(root, 0);
  return tree;
}

/**
 * Depth-first walk. `enter` sees each node with its ancestors (nearest last);
 * returning false skips the node's children.
 */
export function walk(root: AstNode, enter: (node: AstNode, ancestors: readonly AstNode[]) => boolean | void): void {
  let tree = flattened.get(root);
  if (!tree) {
    tree = flatten(root);
    flattened.set(root, tree);
  }
  const { nodes, depths, ends } = tree;
  const ancestors: AstNode[] = [];
  let index = 0;
  while (index < nodes.length) {
    const node = nodes[index] as AstNode;
    ancestors.length = depths[index] as number;
    if (enter(node, ancestors) === false) {
      index = ends[index] as number;
    } else {
      ancestors.push(node);
      index += 1;
    }
  }
}

/** The child node under `key`, if any. */
export function child(node: AstNode, key: string): AstNode | null {
  const value = node[key];
  return isNode(value) ? value : null;
}

/** The child nodes under `key` (skipping holes). */
export function children(node: AstNode, key: string): AstNode[] {
  const value = node[key];
  return Array.isArray(value) ? value.filter(isNode) : [];
}

export function identifierName(node: AstNode | null): string | null {
  if (!node) return null;
  if (node.type === 'Identifier' || node.type === 'JSXIdentifier' || node.type === 'PrivateIdentifier') return node.name as string;
  return null;
}

/** `a.b.c` for member chains of identifiers, `this.x`, or a plain identifier; null otherwise. */
export function memberPath(node: AstNode | null): string | null {
  if (!node) return null;
  if (node.type === 'ThisExpression') return 'this';
  if (node.type === 'MetaProperty') return `${identifierName(child(node, 'meta'))}.${identifierName(child(node, 'property'))}`;
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'MemberExpression') {
    const object = memberPath(child(node, 'object'));
    const property = child(node, 'property');
    if (!object || !property) return null;
    if (node.computed) return property.type === 'Literal' && typeof property.value === 'string' ? `${object}.${property.value}` : `${object}[]`;
    return `${object}.${identifierName(property) ?? '?'}`;
  }
  if (node.type === 'ChainExpression' || node.type === 'TSNonNullExpression' || node.type === 'ParenthesizedExpression') {
    return memberPath(child(node, 'expression'));
  }
  return null;
}

/**
 * The callee path of a call or `new` expression (`res.send`, `eval`). Calls inside a chain are
 * collapsed into their callee: `res.status(500).send` → `res.status.send`, `knex('t').whereRaw` → `knex.whereRaw`.
 */
export function calleePath(node: AstNode): string | null {
  const callee = child(node, 'callee');
  const direct = memberPath(callee);
  if (direct !== null || callee?.type !== 'MemberExpression' || callee.computed) return direct;
  const object = child(callee, 'object');
  const property = identifierName(child(callee, 'property'));
  if (!property) return null;
  const base = object?.type === 'CallExpression' || object?.type === 'NewExpression' ? calleePath(object) : null;
  return base === null ? null : `${base}.${property}`;
}

/** The value of a string literal or a template literal without expressions. */
export function staticString(node: AstNode | null): string | null {
  if (!node) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && children(node, 'expressions').length === 0) {
    const quasi = children(node, 'quasis')[0];
    const cooked = (quasi?.value as { cooked?: string } | undefined)?.cooked;
    return cooked ?? '';
  }
  return null;
}

/** Maps offsets to 1-based lines and columns. */
export function lineLocator(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
  };
}
