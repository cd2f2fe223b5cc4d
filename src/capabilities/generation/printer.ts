// Prints generated code as the project's formatter would: Prettier (standalone, no plugin or config of the project ever loaded) with the project's options, then the ESLint-only rules Prettier has no option for.
import type { Options, Plugin } from 'prettier';
import { type AstNode, children, child, parseSource, walk } from '../../project/ast.js';
import type { CodeStyle } from '../../project/style.js';

export type PrintStyle = Pick<CodeStyle, 'indent' | 'quotes' | 'semicolons' | 'printWidth' | 'trailingComma' | 'bracketSpacing' | 'arrowParens' | 'jsxQuotes' | 'spaceBeforeFunctionParen'>;

/** The parser for a file, from its extension. */
function parserFor(path: string): { parser: string; plugins: () => Promise<Plugin[]> } {
  const estree = () => import('prettier/plugins/estree').then((module) => module.default as unknown as Plugin);
  if (/\.vue$/.test(path)) return { parser: 'vue', plugins: async () => [await import('prettier/plugins/html') as unknown as Plugin, await import('prettier/plugins/typescript') as unknown as Plugin, await import('prettier/plugins/babel') as unknown as Plugin, await estree(), await import('prettier/plugins/postcss') as unknown as Plugin] };
  if (/\.(?:css|scss|less)$/.test(path)) return { parser: /\.scss$/.test(path) ? 'scss' : /\.less$/.test(path) ? 'less' : 'css', plugins: async () => [await import('prettier/plugins/postcss') as unknown as Plugin] };
  if (/\.[cm]?tsx?$/.test(path)) return { parser: 'typescript', plugins: async () => [await import('prettier/plugins/typescript') as unknown as Plugin, await estree()] };
  return { parser: 'babel', plugins: async () => [await import('prettier/plugins/babel') as unknown as Plugin, await estree()] };
}

export function prettierOptions(style: PrintStyle): Options {
  return {
    semi: style.semicolons,
    singleQuote: style.quotes === 'single',
    jsxSingleQuote: style.jsxQuotes === 'single',
    useTabs: style.indent.kind === 'tab',
    tabWidth: style.indent.kind === 'tab' ? 2 : style.indent.size,
    printWidth: style.printWidth,
    trailingComma: style.trailingComma,
    bracketSpacing: style.bracketSpacing,
    arrowParens: style.arrowParens,
    endOfLine: 'lf',
  };
}

/** Formats a whole generated file (named by its project path, which picks the parser). Throws when the code does not parse: a generator bug. */
export async function printSource(path: string, code: string, style: PrintStyle, options: { printWidth?: number } = {}): Promise<string> {
  const { format } = await import('prettier/standalone');
  const { parser, plugins } = parserFor(path);
  const printed = await format(code, { ...prettierOptions(style), ...(options.printWidth ? { printWidth: options.printWidth } : {}), parser, plugins: await plugins() });
  return style.spaceBeforeFunctionParen && parser !== 'css' ? spaceBeforeParameters(path, printed) : printed;
}

/**
 * Formats statements that go into an existing file at `indent` (the indentation of the place they go): printed narrower by
 * that much, then indented, so the lines end where the project's formatter would end them.
 */
export async function printSnippet(path: string, code: string, style: PrintStyle, indent: string): Promise<string> {
  const width = indent.replace(/\t/g, ' '.repeat(style.indent.kind === 'tab' ? 2 : style.indent.size)).length;
  const printed = await printSource(path, code, style, { printWidth: Math.max(40, style.printWidth - width) });
  return printed.split('\n').map((line) => (line ? `${indent}${line}` : line)).join('\n');
}

/** `function name (a)` and `method (a)` for projects whose linter wants a space before the parameters (standard, neostandard). */
function spaceBeforeParameters(path: string, text: string): string {
  const parsed = parseSource(path, text);
  if (!parsed) return text;
  const positions: number[] = [];
  walk(parsed.program, (node) => {
    const named = (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression') ? child(node, 'id') : null;
    const method = node.type === 'MethodDefinition' || (node.type === 'Property' && node.method === true) ? child(node, 'key') : null;
    const after: AstNode | null = named ?? method;
    const fn = method ? child(node, 'value') : node;
    const firstParameter = fn ? children(fn, 'params')[0] : undefined;
    if (!after) return;
    const typeParameters = fn ? child(fn, 'typeParameters') : null;
    const from = (typeParameters?.end ?? after.end) + parsed.offset;
    const open = text.indexOf('(', from);
    if (open !== -1 && (!firstParameter || open < firstParameter.start + parsed.offset) && text[open - 1] !== ' ') positions.push(open);
  });
  let out = text;
  for (const position of positions.sort((left, right) => right - left)) out = `${out.slice(0, position)} ${out.slice(position)}`;
  return out;
}
