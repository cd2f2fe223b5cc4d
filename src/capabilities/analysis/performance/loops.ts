// Slow algorithms and inefficient queries: nested loops over the same data, linear searches in loops, awaits and queries in loops.
import { type AstNode, calleePath, child, children, memberPath, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';

const rule = (id: string, category: string, title: string, help: string): RuleMeta => ({ id, kind: 'performance', category, title, help });

export const loopRules = {
  nestedSameData: rule('performance/nested-loop-same-data', 'algorithms', 'Nested loops over the same collection (O(n²))', 'Index the collection once (a Map keyed by the compared field) and look items up in O(1).'),
  searchInLoop: rule('performance/linear-search-in-loop', 'algorithms', 'Linear search inside a loop (O(n·m))', 'Build a Set or Map before the loop and use has()/get() inside it.'),
  queryInLoop: rule('performance/query-in-loop', 'queries', 'Database query inside a loop (N+1)', 'Fetch all rows in one query (WHERE id IN (…), findMany({ where: { id: { in: ids } } }), include/join), then match in memory.'),
  awaitInLoop: rule('performance/await-in-loop', 'queries', 'Sequential await inside a loop', 'Start the independent operations together and await Promise.all (bounded with a small pool if needed).'),
  unboundedQuery: rule('performance/unbounded-query', 'queries', 'Query without a limit in a request handler', 'Paginate: take/skip (Prisma), limit/offset (SQL, Knex, Sequelize, Mongoose).'),
};

const loopStatements = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);
const iterationMethods = /\.(?:forEach|map|filter|reduce|some|every|flatMap|find|findIndex)$/;
const searchMethods = /\.(?:includes|indexOf|lastIndexOf|find|findIndex|findLast|some|filter)$/;
const queryCall = /^(?:prisma|db|knex|sequelize|pool|client|connection|conn|database|repo|repository|\w+Repository|\w+Model|models\.\w+|mongoose\.model)\.|\.(?:findUnique|findFirst|findMany|findOne|findById|findAll|findByPk|query|execute|aggregate|countDocuments|count|create|update|upsert|save|insert|delete|destroy)$/;
const unboundedListCall = /\.(?:findMany|findAll)$/;

type Loop = { node: AstNode; collection: string | null; body: AstNode | null; variables: string[] };

function loopOf(node: AstNode): Loop | null {
  if (loopStatements.has(node.type)) {
    const collection = node.type === 'ForOfStatement' || node.type === 'ForInStatement' ? memberPath(child(node, 'right')) : loopBound(node);
    const left = child(node, 'left');
    const declared = left?.type === 'VariableDeclaration' ? children(left, 'declarations').map((declarator) => child(declarator, 'id')) : [left];
    return { node, collection, body: child(node, 'body'), variables: declared.flatMap((id) => namesIn(id)) };
  }
  if (node.type === 'CallExpression' && iterationMethods.test(calleePath(node) ?? '')) {
    const callback = children(node, 'arguments')[0] ?? null;
    if (!callback?.type.includes('Function')) return null;
    const callee = child(node, 'callee');
    return { node, collection: callee ? memberPath(child(callee, 'object')) : null, body: child(callback, 'body'), variables: children(callback, 'params').flatMap((param) => namesIn(param)) };
  }
  return null;
}

function namesIn(pattern: AstNode | null): string[] {
  if (!pattern) return [];
  if (pattern.type === 'Identifier') return [pattern.name as string];
  if (pattern.type === 'ObjectPattern') return children(pattern, 'properties').flatMap((property) => namesIn(child(property, 'value') ?? child(property, 'argument')));
  if (pattern.type === 'ArrayPattern') return children(pattern, 'elements').flatMap(namesIn);
  return [];
}

/** `for (let i = 0; i < items.length; i++)` iterates `items`. */
function loopBound(node: AstNode): string | null {
  if (node.type !== 'ForStatement') return null;
  const test = child(node, 'test');
  const right = test?.type === 'BinaryExpression' ? memberPath(child(test, 'right')) : null;
  return right?.endsWith('.length') ? right.slice(0, -'.length'.length) : null;
}

/** Collections that are small by nature: a user's rights, the selected rows, the chosen filters. */
const smallCollection = /(?:rights|roles|permissions|scopes|selected|options|filters?|tags|fields|columns|keys|headers|methods|flags|modes|allowed\w*|types)$/i;

export function checkLoops(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  // Components render lists of tens of items: O(n·m) there is not a performance problem worth a finding.
  const uiFile = /\.(?:[jt]sx|vue|svelte)$/.test(file.path) || /from\s+['"](?:react|vue|svelte|preact|solid-js)['"]/.test(file.text);
  const findings: Finding[] = [];
  const reported = new Set<number>();
  const report = (node: AstNode, meta: RuleMeta, severity: Finding['severity'], message: string): void => {
    if (reported.has(node.start)) return;
    reported.add(node.start);
    findings.push(findingAt(file, node, meta, { severity, message, fix: meta.help }));
  };
  walk(file.parsed.program, (node, ancestors) => {
    const enclosing = enclosingLoops(ancestors);
    const loop = loopOf(node);
    if (loop && loop.collection) {
      const outer = enclosing.find((candidate) => candidate.collection === loop.collection);
      if (outer) report(node, loopRules.nestedSameData, 'Medium', `This loop walks ${loop.collection} inside another loop over ${loop.collection}: O(n²).`);
    }
    if (enclosing.length === 0) return;
    const innermost = enclosing.at(-1) as Loop;
    if (node.type === 'CallExpression') {
      const callee = calleePath(node) ?? '';
      const receiver = callee.slice(0, callee.lastIndexOf('.'));
      if (!uiFile && searchMethods.test(callee) && receiver && /^[\w$.]+$/.test(receiver) && memberPath(child(child(node, 'callee') ?? node, 'object')) === receiver && receiver !== innermost.collection
        && !/^(?:Object|Array|String|path|url)\b/.test(receiver) && !isStringLike(receiver) && !smallCollection.test(receiver) && !enclosing.some((candidate) => candidate.variables.includes(receiver.split('.')[0] ?? ''))) {
        report(node, loopRules.searchInLoop, 'Low', `${callee}() scans ${receiver} on every iteration of the loop over ${innermost.collection ?? 'its items'}.`);
      }
      if (queryCall.test(callee) && !/\.(?:push|set|get|has|add|map|filter|includes|log|find)$/.test(callee) && isInsideLoopBody(ancestors, innermost)) {
        report(node, loopRules.queryInLoop, 'High', `${callee}() runs once per item of ${innermost.collection ?? 'the loop'}: an N+1 query pattern.`);
      }
    }
    if (node.type === 'AwaitExpression' && loopStatements.has(innermost.node.type) && isInsideLoopBody(ancestors, innermost)) {
      const argument = child(node, 'argument');
      const callee = argument?.type === 'CallExpression' ? calleePath(argument) ?? '' : '';
      if (!(queryCall.test(callee))) report(node, loopRules.awaitInLoop, 'Low', 'Each iteration waits for the previous one to finish.');
    }
  });
  walk(file.parsed.program, (node, ancestors) => {
    if (node.type !== 'CallExpression' || !unboundedListCall.test(calleePath(node) ?? '')) return;
    const options = children(node, 'arguments')[0];
    const limited = options?.type === 'ObjectExpression' && children(options, 'properties').some((property) => /^(?:take|limit|first|last)$/.test(String(child(property, 'key')?.name ?? '')));
    if (!limited && isInRequestHandler(ancestors)) report(node, loopRules.unboundedQuery, 'Low', `${calleePath(node)}() returns every row to the client.`);
  });
  return findings;
}

function isStringLike(receiver: string): boolean {
  return /(?:name|text|str|string|title|url|path|line|word|message|label|query|search|term|email|key)$/i.test(receiver);
}

/** Loops the node is inside: for an array method, only when the node is in its callback (`a.filter(…).map(cb)` does not put the filter inside the map). */
function enclosingLoops(ancestors: readonly AstNode[]): Loop[] {
  const loops: Loop[] = [];
  ancestors.forEach((ancestor, index) => {
    const loop = loopOf(ancestor);
    if (!loop) return;
    if (ancestor.type === 'CallExpression') {
      const callback = children(ancestor, 'arguments')[0];
      if (!callback || ancestors[index + 1] !== callback) return;
    }
    loops.push(loop);
  });
  return loops;
}

/** True when the node sits in the loop's body (not in its header), with no function boundary in between except the loop's own callback. */
function isInsideLoopBody(ancestors: readonly AstNode[], loop: Loop): boolean {
  const index = ancestors.indexOf(loop.node);
  const below = ancestors.slice(index + 1);
  if (loop.body && !below.includes(loop.body) && !(loop.node.type === 'CallExpression')) return false;
  const functions = below.filter((node) => node.type.includes('Function'));
  return loop.node.type === 'CallExpression' ? functions.length <= 1 : functions.length === 0;
}

function isInRequestHandler(ancestors: readonly AstNode[]): boolean {
  return ancestors.some((node) => node.type.includes('Function') && children(node, 'params').some((param) => /^(?:req|request|ctx)$/.test(String(param.name ?? ''))));
}
