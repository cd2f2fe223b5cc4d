// Per-file facts for the context cache: imports, exports, symbols, environment variables read, HTTP routes.
import { type AstNode, type ParsedSource, child, children, identifierName, memberPath, staticString, walk, lineLocator } from './ast.js';

export type SymbolKind = 'function' | 'class' | 'variable' | 'type' | 'interface' | 'enum' | 'component';

export type SymbolFact = { name: string; kind: SymbolKind; line: number; exported: boolean; documented: boolean; params?: string[] };
export type ImportFact = { source: string; line: number; names: string[]; typeOnly: boolean; kind: 'import' | 'require' | 'dynamic' | 'reexport' };
export type RouteFact = { method: string; path: string; line: number };

export type FileFacts = {
  imports: ImportFact[];
  exports: string[];
  symbols: SymbolFact[];
  envVars: string[];
  routes: RouteFact[];
};

const httpMethods = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options', 'all']);

export function emptyFacts(): FileFacts {
  return { imports: [], exports: [], symbols: [], envVars: [], routes: [] };
}

export function extractFacts(parsed: ParsedSource, text: string): FileFacts {
  const locate = lineLocator(text);
  const lineOf = (offset: number): number => locate(offset + parsed.offset).line;
  const facts = emptyFacts();
  const envVars = new Set<string>();
  const docEnds = new Set(parsed.comments.filter((comment) => comment.type === 'Block' && comment.value.startsWith('*')).map((comment) => comment.end));
  const isDocumented = (start: number): boolean => {
    let position = start - 1;
    while (position >= 0 && /\s/.test(text[position + parsed.offset] ?? '')) position -= 1;
    return docEnds.has(position + 1);
  };

  for (const statement of children(parsed.program, 'body')) {
    collectTopLevel(statement, facts, lineOf, isDocumented);
  }

  walk(parsed.program, (node, ancestors) => {
    if (node.type === 'CallExpression' || node.type === 'NewExpression') {
      collectCall(node, facts, lineOf);
    } else if (node.type === 'ImportExpression') {
      const source = staticString(child(node, 'source'));
      if (source) facts.imports.push({ source, line: lineOf(node.start), names: [], typeOnly: false, kind: 'dynamic' });
    } else if (node.type === 'MemberExpression') {
      const path = memberPath(node);
      const match = path ? /^(?:process\.env|import\.meta\.env)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(path) : null;
      if (match?.[1]) envVars.add(match[1]);
    } else if (node.type === 'VariableDeclarator') {
      const init = memberPath(child(node, 'init'));
      const id = child(node, 'id');
      if (init === 'process.env' && id?.type === 'ObjectPattern') {
        for (const property of children(id, 'properties')) {
          const key = identifierName(child(property, 'key'));
          if (key) envVars.add(key);
        }
      }
    }
    return ancestors.length < 400;
  });
  facts.envVars = [...envVars].sort();
  return facts;
}

function collectTopLevel(statement: AstNode, facts: FileFacts, lineOf: (offset: number) => number, isDocumented: (start: number) => boolean): void {
  if (statement.type === 'ImportDeclaration') {
    const source = staticString(child(statement, 'source'));
    if (!source) return;
    const names = children(statement, 'specifiers').map((specifier) =>
      specifier.type === 'ImportDefaultSpecifier' ? 'default' : specifier.type === 'ImportNamespaceSpecifier' ? '*' : (identifierName(child(specifier, 'imported')) ?? staticString(child(specifier, 'imported')) ?? '?'));
    facts.imports.push({ source, line: lineOf(statement.start), names, typeOnly: statement.importKind === 'type', kind: 'import' });
    return;
  }
  if (statement.type === 'ExportAllDeclaration' || (statement.type === 'ExportNamedDeclaration' && child(statement, 'source'))) {
    const source = staticString(child(statement, 'source'));
    if (source) facts.imports.push({ source, line: lineOf(statement.start), names: ['*'], typeOnly: statement.exportKind === 'type', kind: 'reexport' });
    for (const specifier of children(statement, 'specifiers')) facts.exports.push(exportedName(specifier));
    if (statement.type === 'ExportAllDeclaration') facts.exports.push('*');
    return;
  }
  if (statement.type === 'ExportNamedDeclaration') {
    const declaration = child(statement, 'declaration');
    if (declaration) {
      for (const symbol of declaredSymbols(declaration, lineOf, isDocumented(statement.start))) {
        facts.symbols.push({ ...symbol, exported: true });
        facts.exports.push(symbol.name);
      }
    }
    for (const specifier of children(statement, 'specifiers')) {
      const name = exportedName(specifier);
      facts.exports.push(name);
      const local = identifierName(child(specifier, 'local'));
      const symbol = facts.symbols.find((candidate) => candidate.name === local);
      if (symbol) symbol.exported = true;
    }
    return;
  }
  if (statement.type === 'ExportDefaultDeclaration') {
    facts.exports.push('default');
    const declaration = child(statement, 'declaration');
    if (declaration) {
      for (const symbol of declaredSymbols(declaration, lineOf, isDocumented(statement.start))) facts.symbols.push({ ...symbol, exported: true });
      const local = identifierName(declaration);
      const symbol = facts.symbols.find((candidate) => candidate.name === local);
      if (symbol) symbol.exported = true;
    }
    return;
  }
  if (statement.type === 'ExpressionStatement') {
    collectCommonJsExport(child(statement, 'expression'), facts);
  }
  for (const symbol of declaredSymbols(statement, lineOf, isDocumented(statement.start))) facts.symbols.push(symbol);
}

function exportedName(specifier: AstNode): string {
  const exported = child(specifier, 'exported');
  return identifierName(exported) ?? staticString(exported) ?? '?';
}

function collectCommonJsExport(expression: AstNode | null, facts: FileFacts): void {
  if (expression?.type !== 'AssignmentExpression') return;
  const target = memberPath(child(expression, 'left'));
  if (target === 'module.exports') {
    const right = child(expression, 'right');
    if (right?.type === 'ObjectExpression') {
      for (const property of children(right, 'properties')) {
        const key = identifierName(child(property, 'key'));
        if (key) facts.exports.push(key);
      }
    } else {
      facts.exports.push('default');
    }
  } else if (target?.startsWith('exports.') || target?.startsWith('module.exports.')) {
    facts.exports.push(target.slice(target.lastIndexOf('.') + 1));
  }
}

function declaredSymbols(node: AstNode, lineOf: (offset: number) => number, documented: boolean): SymbolFact[] {
  const base = { line: lineOf(node.start), exported: false, documented };
  const name = identifierName(child(node, 'id'));
  switch (node.type) {
    case 'FunctionDeclaration':
      return name ? [{ ...base, name, kind: isComponentName(name) ? 'component' : 'function', params: paramNames(node) }] : [];
    case 'ClassDeclaration':
      return name ? [{ ...base, name, kind: 'class' }] : [];
    case 'TSInterfaceDeclaration':
      return name ? [{ ...base, name, kind: 'interface' }] : [];
    case 'TSTypeAliasDeclaration':
      return name ? [{ ...base, name, kind: 'type' }] : [];
    case 'TSEnumDeclaration':
      return name ? [{ ...base, name, kind: 'enum' }] : [];
    case 'VariableDeclaration':
      return children(node, 'declarations').flatMap((declarator): SymbolFact[] => {
        const variable = identifierName(child(declarator, 'id'));
        if (!variable) return [];
        const init = child(declarator, 'init');
        const isFunction = init?.type === 'ArrowFunctionExpression' || init?.type === 'FunctionExpression';
        if (!isFunction) return [{ ...base, name: variable, kind: 'variable' }];
        return [{ ...base, name: variable, kind: isComponentName(variable) ? 'component' : 'function', params: paramNames(init) }];
      });
    default:
      return [];
  }
}

function isComponentName(name: string): boolean {
  return /^[A-Z][A-Za-z0-9]*$/.test(name) && !/^[A-Z0-9_]+$/.test(name);
}

function paramNames(fn: AstNode): string[] {
  return children(fn, 'params').map((param) => {
    const target = param.type === 'AssignmentPattern' ? child(param, 'left') : param.type === 'TSParameterProperty' ? child(param, 'parameter') : param;
    if (target?.type === 'RestElement') return `...${identifierName(child(target, 'argument')) ?? 'rest'}`;
    if (target?.type === 'ObjectPattern') return '{…}';
    return identifierName(target) ?? '?';
  });
}

function collectCall(node: AstNode, facts: FileFacts, lineOf: (offset: number) => number): void {
  const callee = child(node, 'callee');
  const args = children(node, 'arguments');
  if (identifierName(callee) === 'require' && node.type === 'CallExpression') {
    const source = staticString(args[0] ?? null);
    if (source) facts.imports.push({ source, line: lineOf(node.start), names: [], typeOnly: false, kind: 'require' });
    return;
  }
  if (callee?.type !== 'MemberExpression' || callee.computed) return;
  const method = identifierName(child(callee, 'property'));
  if (!method || !httpMethods.has(method)) return;
  const path = staticString(args[0] ?? null);
  if (path === null || !path.startsWith('/') || args.length < 2) return;
  facts.routes.push({ method: method === 'del' ? 'DELETE' : method.toUpperCase(), path, line: lineOf(node.start) });
}
