// Injection: SQL and NoSQL queries, shell commands, eval/Function, file paths and redirects built from untrusted input.
import { type AstNode, calleePath, child, children, staticString, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';
import { analyseTaint } from './taint.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'security', category: 'injection', title, help });

export const injectionRules = {
  sql: rule('security/sql-injection', 'SQL built from untrusted input', 'Use parameterised queries (placeholders and a values array, or tagged templates such as Prisma $queryRaw`…`).'),
  nosql: rule('security/nosql-injection', 'NoSQL query built from untrusted input', 'Coerce input to the expected type (String(…)) or validate it with a schema before it reaches the query; reject objects such as {"$ne": null}.'),
  command: rule('security/command-injection', 'Shell command built from untrusted input', 'Use execFile/spawn with an argument array and no shell, and allow-list the values.'),
  code: rule('security/code-injection', 'Code evaluated from untrusted input', 'Never evaluate input: parse it (JSON.parse) or map it to an allow-listed action.'),
  evalDynamic: rule('security/eval-dynamic', 'eval or Function on a dynamic string', 'Replace eval/new Function with explicit code, JSON.parse or a lookup table.'),
  path: rule('security/path-traversal', 'File path built from untrusted input', 'Reduce the input to a file name (path.basename), resolve it against a fixed root and check the result stays inside it, or pass { root } to res.sendFile.'),
  redirect: rule('security/open-redirect', 'Redirect to an untrusted URL', 'Redirect only to relative paths or to an allow-list of hosts.'),
};

const sqlMethods = /(?:^|\.)(?:query|execute|raw|whereRaw|orderByRaw|havingRaw|joinRaw|\$queryRawUnsafe|\$executeRawUnsafe|exec|run|all|get|prepare|each|unsafe)$/;
const sqlText = /\b(?:select|insert|update|delete|where|from|values|order\s+by|drop|create|alter)\b/i;
const mongoMethods = /\.(?:find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|updateOne|updateMany|deleteOne|deleteMany|countDocuments|replaceOne|distinct|where|exists)$/;
const commandCalls = /^(?:(?:child_process|cp|childProcess|shell|shelljs)\.)?(?:exec|execSync)$|^execa(?:Command)?(?:Sync)?$|^\$$/;
const spawnCalls = /^(?:(?:child_process|cp|childProcess)\.)?(?:spawn|spawnSync|execFile|execFileSync)$/;
const evalCalls = /^(?:eval|Function|window\.eval|globalThis\.eval|vm\.runInNewContext|vm\.runInThisContext|vm\.runInContext|vm\.compileFunction|setTimeout|setInterval|setImmediate)$/;
const fsCalls = /^(?:fs|fsp|fs\.promises|promises|fse|fsExtra)\.(?:readFile|readFileSync|writeFile|writeFileSync|appendFile|appendFileSync|createReadStream|createWriteStream|unlink|unlinkSync|rm|rmSync|readdir|readdirSync|stat|statSync|open|openSync|access|accessSync|copyFile|rename|mkdir|rmdir|lstat|existsSync|readJson|outputFile|remove)$|^(?:readFile|readFileSync|writeFile|writeFileSync|createReadStream|createWriteStream|unlink|readdir|open|appendFile)$/;

export function checkInjection(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const taint = analyseTaint(file.parsed.program);
  const findings: Finding[] = [];
  walk(file.parsed.program, (node, ancestors) => {
    if (node.type !== 'CallExpression' && node.type !== 'NewExpression') return;
    const callee = calleePath(node) ?? '';
    const args = children(node, 'arguments');
    const first = args[0] ?? null;
    const tainted = (value: AstNode | null, coercionSanitizes = false): boolean => taint.isTainted(value, ancestors, { coercionSanitizes });

    if (sqlMethods.test(callee) && first && staticString(first) === null && tainted(first) && (looksLikeSql(first) || /(?:query|raw|unsafe)$/i.test(callee))) {
      findings.push(findingAt(file, node, injectionRules.sql, { severity: 'Critical', message: `SQL text passed to ${callee}() is built from request input.`, fix: injectionRules.sql.help }));
      return;
    }
    if (mongoMethods.test(callee) && first?.type === 'ObjectExpression') {
      const unsafe = mongoValues(first).find((value) => (taint.directSource(value)?.includes('.params') !== true) && tainted(value, true));
      if (unsafe) findings.push(findingAt(file, unsafe, injectionRules.nosql, { severity: 'High', message: `A query filter passed to ${callee}() takes request input as is; an object such as {"$ne": null} changes the query.`, fix: injectionRules.nosql.help }));
      return;
    }
    if (commandCalls.test(callee) && first && tainted(first)) {
      findings.push(findingAt(file, node, injectionRules.command, { severity: 'Critical', message: `The command run by ${callee}() contains request input; a shell interprets it.`, fix: injectionRules.command.help }));
      return;
    }
    if (spawnCalls.test(callee) && usesShell(args) && args.some((argument) => tainted(argument))) {
      findings.push(findingAt(file, node, injectionRules.command, { severity: 'Critical', message: `${callee}() runs through a shell with request input in its command.`, fix: injectionRules.command.help }));
      return;
    }
    if (evalCalls.test(callee) && first) {
      const isTimer = /set(?:Timeout|Interval|Immediate)$/.test(callee);
      if (isTimer && (first.type.includes('Function') || (first.type === 'Identifier' && !tainted(first)))) return;
      if (tainted(first)) {
        findings.push(findingAt(file, node, injectionRules.code, { severity: 'Critical', message: `${callee}() evaluates request input as code.`, fix: injectionRules.code.help }));
      } else if (!isTimer && args.some((argument) => staticString(argument) === null)) {
        findings.push(findingAt(file, node, injectionRules.evalDynamic, { severity: 'Medium', message: `${callee}() evaluates a string built at run time.`, fix: injectionRules.evalDynamic.help }));
      }
      return;
    }
    if (fsCalls.test(callee) && first && tainted(first)) {
      findings.push(findingAt(file, node, injectionRules.path, { severity: 'High', message: `The path given to ${callee}() comes from request input; "../" reaches any file.`, fix: injectionRules.path.help }));
      return;
    }
    if (/\.(?:sendFile|download|sendfile)$/.test(callee) && first && tainted(first) && !hasRootOption(args[1] ?? null)) {
      findings.push(findingAt(file, node, injectionRules.path, { severity: 'High', message: `${callee}() serves a path taken from request input without a root folder.`, fix: injectionRules.path.help }));
      return;
    }
    if (/^(?:res|reply|response|ctx)\.redirect$/.test(callee) && first && tainted(args.at(-1) ?? null)) {
      findings.push(findingAt(file, node, injectionRules.redirect, { severity: 'Medium', message: `${callee}() sends the user to a URL taken from the request.`, fix: injectionRules.redirect.help }));
    }
  });
  return findings;
}

function looksLikeSql(node: AstNode): boolean {
  if (node.type === 'TemplateLiteral') return children(node, 'quasis').some((quasi) => sqlText.test((quasi.value as { raw: string }).raw));
  if (node.type === 'BinaryExpression') return looksLikeSql(child(node, 'left') as AstNode) || looksLikeSql(child(node, 'right') as AstNode);
  const text = staticString(node);
  return text !== null && sqlText.test(text);
}

function mongoValues(filter: AstNode): AstNode[] {
  return children(filter, 'properties').flatMap((property) => {
    const value = property.type === 'SpreadElement' ? child(property, 'argument') : child(property, 'value');
    if (!value) return [];
    return value.type === 'ObjectExpression' ? mongoValues(value) : [value];
  });
}

function usesShell(args: AstNode[]): boolean {
  return args.some((argument) => argument.type === 'ObjectExpression' && children(argument, 'properties').some((property) => {
    const key = child(property, 'key');
    const value = child(property, 'value');
    return (key?.name === 'shell' || key?.value === 'shell') && !(value?.type === 'Literal' && value.value === false);
  }));
}

function hasRootOption(options: AstNode | null): boolean {
  return options?.type === 'ObjectExpression' && children(options, 'properties').some((property) => child(property, 'key')?.name === 'root');
}
