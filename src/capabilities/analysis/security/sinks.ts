// Where untrusted input must not arrive: SQL, NoSQL, shells, eval and template compilers, file paths, redirects, outgoing URLs, XPath, XML parsers with entities, logs, HTML responses, JWT key material.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString } from '../../../project/ast.js';
import type { RuleMeta, Severity } from '../types.js';
import type { FileScope } from './scope.js';

const rule = (id: string, category: string, title: string, help: string): RuleMeta => ({ id, kind: 'security', category, title, help });

export const injectionRules = {
  sql: rule('security/sql-injection', 'injection', 'SQL built from untrusted input', 'Use parameterised queries (placeholders and a values array, or tagged templates such as Prisma $queryRaw`…`).'),
  nosql: rule('security/nosql-injection', 'injection', 'NoSQL query built from untrusted input', 'Coerce input to the expected type (String(…)) or validate it with a schema before it reaches the query; reject objects such as {"$ne": null}.'),
  command: rule('security/command-injection', 'injection', 'Shell command built from untrusted input', 'Use execFile/spawn with a fixed program, an argument array and no shell, and allow-list the values.'),
  code: rule('security/code-injection', 'injection', 'Code evaluated from untrusted input', 'Never evaluate input: parse it (JSON.parse), map it to an allow-listed action, and never compile templates from request text.'),
  evalDynamic: rule('security/eval-dynamic', 'injection', 'eval or Function on a dynamic string', 'Replace eval/new Function with explicit code, JSON.parse or a lookup table.'),
  path: rule('security/path-traversal', 'path-traversal', 'File path built from untrusted input', 'Reduce the input to a file name (path.basename), resolve it against a fixed root and check the result stays inside it, or pass { root } to res.sendFile.'),
  redirect: rule('security/open-redirect', 'open-redirect', 'Redirect to an untrusted URL', 'Redirect only to relative paths or to an allow-list of hosts.'),
  ssrf: rule('security/ssrf', 'ssrf', 'Server request to a URL from untrusted input', 'Request only fixed hosts: build the URL from a constant origin and an encoded path, or check the host against an allow-list.'),
  xpath: rule('security/xpath-injection', 'injection', 'XPath built from untrusted input', 'Pass values as XPath variables (xpath.evaluate with a variable resolver), or allow-list and escape them.'),
  xxe: rule('security/xxe', 'xxe', 'XML with external entities parsed from untrusted input', 'Parse without noent/dtdload (libxmljs defaults), or use a parser that never expands external entities.'),
  log: rule('security/log-injection', 'log-injection', 'Untrusted input written into a log line', 'Log values as structured fields (JSON) or strip CR/LF before logging, so that input cannot forge log lines.'),
};

export const xssRules = {
  dangerouslySetInnerHTML: rule('security/react-dangerous-html', 'xss', 'HTML rendered from an unsanitised value', 'Render text as children, or sanitise the HTML first (DOMPurify.sanitize(html)).'),
  domSink: rule('security/dom-xss', 'xss', 'HTML written into the DOM from a dynamic value', 'Use textContent (or createElement) for text; sanitise HTML with DOMPurify before innerHTML.'),
  reflected: rule('security/reflected-xss', 'xss', 'Request input sent back as HTML', 'Escape the value for HTML (e.g. with a template engine that escapes, or he.encode), or send JSON with res.json().'),
  template: rule('security/template-xss', 'xss', 'Unescaped output in a template', 'Use the escaping form of the template syntax, or sanitise the HTML before it reaches the template.'),
  trustBypass: rule('security/angular-trust-bypass', 'xss', 'Angular sanitisation bypassed for a dynamic value', 'Let Angular sanitise the value; call bypassSecurityTrust* only on constants you wrote.'),
};

export const jwtRules = {
  keyFromToken: rule('security/jwt-key-from-token', 'crypto', 'JWT verified with a key the token itself supplies', 'Verify with keys you hold (or fetch from a fixed, trusted JWKS URL); ignore jwk, jku, x5u and x5c from the token header.'),
  algorithmFromToken: rule('security/jwt-algorithm-from-token', 'crypto', 'JWT algorithm chosen by the token', 'Pin the accepted algorithms (algorithms: [\'RS256\']) instead of taking alg from the token header.'),
};

/** One value that must not carry untrusted input, and what to say when it does. */
export type SinkCheck = { value: AstNode; rule: RuleMeta; severity: Severity; message: string; coercionSanitizes?: boolean };

export type SinkContext = {
  scope: FileScope;
  /** Local names bound to the response object (by role or by the usual names). */
  isResponse: (node: AstNode | null) => boolean;
  /** The static text a value starts with, following local variables (for "is this SQL", "is this a fixed origin"). */
  leadingText: (node: AstNode | null) => string | null;
  /** All static text of a value, following local variables. */
  staticText: (node: AstNode | null) => string;
  /** The value is text (a literal, template, concatenation, or a request field), not an object or a call's result, which res.send serialises as JSON. */
  isStringLike: (node: AstNode | null) => boolean;
  /** The expression a value is, following local variables given one value (`const command = new X(…)` → the `new`); the value itself otherwise. */
  resolved: (node: AstNode) => AstNode;
  /** The object literal a value is, following local variables (`const query = { … }; find(query)`), or null. */
  objectLiteral: (node: AstNode | null) => AstNode | null;
  /** The module a local value was made by (`const logger = log4js.getLogger()` → log4js), following local variables. */
  originModule: (node: AstNode | null) => string | null;
  /** The file runs in a browser (components, client folders). */
  clientFile: boolean;
};

const sqlKeywords = /\b(?:select|insert|update|delete|where|from|values|order\s+by|drop|create|alter)\b/i;
const sqlMethodsAlwaysSql = /(?:^|\.)(?:query|execute|raw|whereRaw|orderByRaw|havingRaw|joinRaw|groupByRaw|\$queryRawUnsafe|\$executeRawUnsafe|unsafe|queryRaw)$/;
const sqlMethodsIfSql = /(?:^|\.)(?:exec|run|all|get|prepare|each|one|many|any|none|oneOrNone|manyOrNone|result|multi)$/;
const mongoMethods = /\.(?:find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|updateOne|updateMany|deleteOne|deleteMany|countDocuments|replaceOne|distinct|where|exists)$/;
const fsMethods = /(?:^|\.)(?:readFile|readFileSync|writeFile|writeFileSync|appendFile|appendFileSync|createReadStream|createWriteStream|unlink|unlinkSync|rm|rmSync|readdir|readdirSync|open|openSync|copyFile|copyFileSync|rename|renameSync|mkdir|rmdir|readJson|readJsonSync|outputFile|remove|truncate)$/;
const fsModules = /^(?:node:)?fs(?:\/promises)?$|^fs-extra$|^graceful-fs$/;
const templateCompilers: Record<string, RegExp> = {
  dot: /(?:^|\.)(?:template|compile)$/, ejs: /(?:^|\.)(?:render|compile)$/, pug: /(?:^|\.)(?:render|compile)$/, jade: /(?:^|\.)(?:render|compile)$/,
  handlebars: /(?:^|\.)compile$/, hbs: /(?:^|\.)compile$/, lodash: /(?:^|\.)template$/, underscore: /(?:^|\.)template$/, 'lodash.template': /./,
  nunjucks: /(?:^|\.)renderString$/, mustache: /(?:^|\.)render$/, swig: /(?:^|\.)(?:render|compile)$/, mathjs: /(?:^|\.)(?:evaluate|eval|compile)$/,
};
const httpClients: Record<string, RegExp> = {
  axios: /^[\w$]+(?:\.(?:get|post|put|patch|delete|head|request|options))?$/, 'node-fetch': /^[\w$]+$/, got: /^[\w$]+(?:\.(?:get|post|put|patch|delete|head|stream))?$/,
  request: /^[\w$]+(?:\.(?:get|post|put|patch|delete|head))?$/, superagent: /^[\w$]+\.(?:get|post|put|patch|delete|head)$/, needle: /^[\w$]+(?:\.(?:get|post|put|patch|delete|head|request))?$/,
  undici: /^(?:[\w$]+\.)?(?:request|fetch|stream)$/, http: /(?:^|\.)(?:get|request)$/, https: /(?:^|\.)(?:get|request)$/, 'node:http': /(?:^|\.)(?:get|request)$/, 'node:https': /(?:^|\.)(?:get|request)$/,
};
const loggerModules = /^(?:log4js|winston|bunyan|loglevel|signale|npmlog)$/;

/** The module the root name of a callee comes from (`fs.promises.readFile` → fs), or null. */
export function moduleOfCallee(call: AstNode, scope: FileScope): string | null {
  const path = calleePath(call) ?? '';
  const root = path.split('.')[0] ?? '';
  return scope.imports.get(root)?.module ?? null;
}

function hasOption(options: AstNode | null, key: string, accept: (value: AstNode | null) => boolean): boolean {
  return options?.type === 'ObjectExpression' && children(options, 'properties').some((property) => (identifierName(child(property, 'key')) ?? staticString(child(property, 'key'))) === key && accept(child(property, 'value')));
}

const isTrue = (value: AstNode | null): boolean => value?.type === 'Literal' && value.value === true;

/** The checks a call implies, when it is a sink. */
export function sinksOfCall(call: AstNode, context: SinkContext): SinkCheck[] {
  const callee = calleePath(call) ?? '';
  const module = moduleOfCallee(call, context.scope);
  const args = children(call, 'arguments');
  const first = args[0] ?? null;
  if (!first) return [];
  const checks: SinkCheck[] = [];
  const push = (value: AstNode | null, meta: RuleMeta, severity: Severity, message: string, coercionSanitizes = false): void => {
    if (value && staticString(value) === null) checks.push({ value, rule: meta, severity, message, coercionSanitizes });
  };

  if (sqlMethodsAlwaysSql.test(callee) || (sqlMethodsIfSql.test(callee) && sqlKeywords.test(context.staticText(first)))) {
    // SQL is text: `commandBus.execute(new CreatePostCommand(…))` or `execute(command)` given an object is no query.
    const value = context.resolved(first);
    const notText = /^(?:NewExpression|ObjectExpression|ArrayExpression|ArrowFunctionExpression|FunctionExpression|ClassExpression)$/.test(value.type);
    if (!notText && !/^(?:child_process|cp|childProcess|shell|\$)\./.test(callee) && !module?.includes('child_process')) {
      push(first, injectionRules.sql, 'Critical', `SQL text passed to ${callee}() is built from request input.`);
    }
  }
  if (mongoMethods.test(callee)) checkMongoFilter(first, callee, module, context, push);
  const commandModule = module !== null && /^(?:node:)?child_process$|^shelljs$|^execa$|^zx$|^cross-spawn$/.test(module);
  if (/(?:^|\.)(?:exec|execSync)$|^execa(?:Command)?(?:Sync)?$|^\$$/.test(callee) && (commandModule || /^(?:child_process|cp|childProcess|shell|shelljs)\.|^(?:exec|execSync|execa\w*|\$)$/.test(callee)) && !sqlMethodsAlwaysSql.test(callee)) {
    push(first, injectionRules.command, 'Critical', `The command run by ${callee}() contains request input; a shell interprets it.`);
  } else if (/(?:^|\.)(?:spawn|spawnSync|execFile|execFileSync|fork)$/.test(callee) && (commandModule || /^(?:child_process|cp|childProcess)\.|^(?:spawn|spawnSync|execFile|execFileSync|fork)$/.test(callee))) {
    push(first, injectionRules.command, 'Critical', `${callee}() runs a program named by request input.`);
    if (args.some((argument) => hasOption(argument, 'shell', (value) => !(value?.type === 'Literal' && value.value === false)))) {
      for (const argument of args.slice(1)) push(argument, injectionRules.command, 'Critical', `${callee}() runs through a shell with request input in its command.`);
    }
  }
  if (isEval(callee, module)) {
    for (const argument of callee === 'Function' ? args : [first]) push(argument, injectionRules.code, 'Critical', `${callee}() evaluates request input as code.`);
  } else if (/^(?:window\.|globalThis\.)?set(?:Timeout|Interval|Immediate)$/.test(callee) && !first.type.includes('Function') && first.type !== 'Identifier' && first.type !== 'MemberExpression') {
    push(first, injectionRules.code, 'Critical', `${callee}() evaluates a string built from request input as code.`);
  }
  const compiler = module ? templateCompilers[module.replace(/^doT$/, 'dot')] : undefined;
  if (compiler && compiler.test(callee)) {
    push(first, injectionRules.code, 'Critical', module === 'mathjs' ? `${callee}() evaluates an expression taken from request input.` : `${callee}() compiles a template taken from request input (server-side template injection).`);
  }
  if (fsMethods.test(callee) && ((module !== null && fsModules.test(module)) || /^(?:fs|fsp|fs\.promises|promises|fse|fsExtra)\./.test(callee)) || /(?:^|\.)promises\.(?:access|stat|lstat|open|readFile|writeFile|unlink|rm)$/.test(callee) || (/^(?:fs|fsp)\.(?:access|accessSync|stat|statSync|lstat|existsSync)$/.test(callee))) {
    push(first, injectionRules.path, 'High', `The path given to ${callee}() comes from request input; "../" reaches any file.`);
  }
  // Fastify's reply.sendFile serves from the root @fastify/static was registered with.
  if (/\.(?:sendFile|download|sendfile)$/.test(callee) && !/^reply\./.test(callee) && !hasOption(args[1] ?? null, 'root', () => true)) {
    push(first, injectionRules.path, 'High', `${callee}() serves a path taken from request input without a root folder.`);
  }
  if (/^(?:require|import)$/.test(callee)) push(first, injectionRules.code, 'Critical', `${callee}() loads a module named by request input.`);
  if (/\.redirect$/.test(callee) && context.isResponse(child(child(call, 'callee') ?? call, 'object'))) {
    const target = args.at(-1) ?? null;
    if (!isRelativePath(context.leadingText(target))) push(target, injectionRules.redirect, 'Medium', `${callee}() sends the user to a URL taken from the request.`);
  }
  const client = module ? httpClients[module] : undefined;
  if (!context.clientFile && ((client && client.test(callee)) || /^fetch$/.test(callee))) {
    if (!isFixedOrigin(context.leadingText(first))) push(first, injectionRules.ssrf, 'High', `${callee}() requests a URL taken from request input: it can reach internal services and cloud metadata.`);
  }
  if ((module === 'xpath' && /(?:^|\.)(?:select|select1|evaluate|parse)$/.test(callee)) || callee === 'document.evaluate') {
    push(first, injectionRules.xpath, 'High', `The XPath expression given to ${callee}() is built from request input.`);
  }
  if (module !== null && /^libxmljs2?$/.test(module) && /(?:^|\.)(?:parseXml|parseXmlString|parseHtml|parseXmlAsync)$/.test(callee) && hasOption(args[1] ?? null, 'noent', isTrue)) {
    push(first, injectionRules.xxe, 'High', `${callee}() parses request input with external entities on (noent): it can read local files.`);
  }
  if (isLoggingCall(call, callee, context) && (first.type === 'TemplateLiteral' || first.type === 'BinaryExpression')) {
    push(first, injectionRules.log, 'Low', `${callee}() writes request input into a log line; a new line in it forges entries.`);
  }
  if (context.isResponse(child(child(call, 'callee') ?? call, 'object')) && /\.(?:send|write|end)$/.test(callee) && context.isStringLike(first)) {
    push(first, xssRules.reflected, 'High', `${callee}() sends request input back; Express serves strings as text/html.`);
  }
  if (/(?:^|\.)(?:document\.write|document\.writeln)$/.test(callee)) push(first, xssRules.domSink, 'High', `${callee}() writes request input as HTML.`);
  if (/\.insertAdjacentHTML$/.test(callee)) push(args[1] ?? null, xssRules.domSink, 'High', 'insertAdjacentHTML() inserts request input as HTML.');
  if (/\.bypassSecurityTrust(?:Html|Script|Style|Url|ResourceUrl)$/.test(callee)) push(first, xssRules.trustBypass, 'High', `${callee}() marks request input as safe HTML.`);
  if (module !== null && /^jose$/.test(module) && /(?:^|\.)(?:importJWK|importPKCS8|importX509|importSPKI|createLocalJWKSet|createRemoteJWKSet|EmbeddedJWK)$/.test(callee)) {
    push(first, jwtRules.keyFromToken, 'High', `${callee}() builds the verification key from the token's own header: anyone can sign tokens it accepts.`);
  }
  if ((module === 'jwt-simple' || (module === 'jsonwebtoken' && /\.verify$/.test(callee))) && /(?:^|\.)(?:decode|verify)$/.test(callee)) {
    const algorithm = module === 'jwt-simple' ? args[3] ?? null : algorithmsOption(args[2] ?? null);
    push(algorithm, jwtRules.algorithmFromToken, 'High', `${callee}() verifies with the algorithm the token names: an RSA public key becomes an HMAC secret ("alg" switching).`);
  }
  return checks;
}

/** eval, Function and the vm module's evaluators. */
export function isEval(callee: string, module: string | null): boolean {
  return /^(?:eval|Function|window\.eval|globalThis\.eval)$/.test(callee) || /^vm\.(?:runInNewContext|runInThisContext|runInContext|compileFunction)$/.test(callee)
    || (module !== null && /^(?:node:)?vm$/.test(module) && /(?:^|\.)(?:runIn\w+|compileFunction|Script)$/.test(callee));
}

function algorithmsOption(options: AstNode | null): AstNode | null {
  if (options?.type !== 'ObjectExpression') return null;
  const property = children(options, 'properties').find((candidate) => identifierName(child(candidate, 'key')) === 'algorithms');
  return property ? child(property, 'value') : null;
}

/** `console.*` and loggers from plain-text logging libraries (structured loggers such as pino encode values). */
function isLoggingCall(call: AstNode, callee: string, context: SinkContext): boolean {
  if (!/\.(?:log|info|warn|error|debug|trace|fatal)$/.test(callee)) return false;
  if (/^console\./.test(callee)) return !context.clientFile;
  const root = callee.split('.')[0] ?? '';
  const imported = context.scope.imports.get(root);
  if (imported) return loggerModules.test(imported.module);
  const origin = context.originModule(child(child(call, 'callee') ?? call, 'object'));
  return origin !== null && loggerModules.test(origin);
}

/** A redirect target that starts with a fixed path of this site ("/login?…") cannot leave it. */
function isRelativePath(leading: string | null): boolean {
  return leading !== null && /^\/(?:[^/\\]|$)/.test(leading);
}

/** A URL that starts with a fixed origin ("https://api.example.com/…", or a path of this site) keeps its host whatever follows. */
function isFixedOrigin(leading: string | null): boolean {
  return leading !== null && (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+[/?#]/i.test(leading) || /^\/(?:[^/\\]|$)/.test(leading));
}

/** ORM options objects (Sequelize, TypeORM, Prisma) are not MongoDB filters. */
const ormOptionKeys = /^(?:where|include|attributes|select|relations|order)$/;
/** Array and collection helpers share the method names (`items.find(fn)`, `_.find(list, fn)`). */
/** Methods whose first argument is the whole filter (not a field name, as `where('name')` or `distinct('field')` take). */
const wholeFilterMethods = /\.(?:find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|updateOne|updateMany|deleteOne|deleteMany|countDocuments|replaceOne)$/;
const collectionModules = /^(?:lodash(?:\.\w+)?|underscore|ramda|lodash-es)$/;

/**
 * A MongoDB filter: written inline, built in a variable first (`const query = { $where: … }; find(query)`), or a request
 * object passed whole (`find(req.body)`). `$where` runs JavaScript in the database, so text built from input there is
 * code injection, whatever operators the rest of the filter carries.
 */
function checkMongoFilter(first: AstNode, callee: string, module: string | null, context: SinkContext, push: (value: AstNode | null, meta: RuleMeta, severity: Severity, message: string, coercionSanitizes?: boolean) => void): void {
  if (module !== null && collectionModules.test(module)) return;
  const filter = context.objectLiteral(first);
  if (!filter) {
    // Route parameters are always strings; only bodies and query strings can carry objects.
    const whole = (first.type === 'MemberExpression' || first.type === 'Identifier') && wholeFilterMethods.test(callee) && !/(?:^|\.)params\b/.test(memberPath(first) ?? '');
    if (whole) push(first, injectionRules.nosql, 'High', `The query filter passed to ${callee}() is request input as is; an object such as {"$ne": null} or {"$where": …} changes the query.`, true);
    return;
  }
  if (children(filter, 'properties').some((property) => ormOptionKeys.test(identifierName(child(property, 'key')) ?? ''))) return;
  // `const query = {}; query.title = req.body.title; find(query)`: the filter is filled in field by field.
  if (filter !== first && children(filter, 'properties').length === 0) push(first, injectionRules.nosql, 'High', `A query filter passed to ${callee}() is filled in from request input as is; an object such as {"$ne": null} changes the query.`, true);
  for (const property of children(filter, 'properties')) {
    const key = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
    const value = child(property, 'value');
    if (key === '$where' && value && value.type !== 'ObjectExpression') {
      push(value, injectionRules.nosql, 'Critical', `The $where clause passed to ${callee}() is JavaScript built from request input; the database runs it.`);
    }
  }
  const values = mongoValues(filter).filter((value) => !isStringValued(value) && !children(filter, 'properties').some((property) => (identifierName(child(property, 'key')) ?? staticString(child(property, 'key'))) === '$where' && child(property, 'value') === value));
  for (const value of values) push(value, injectionRules.nosql, 'High', `A query filter passed to ${callee}() takes request input as is; an object such as {"$ne": null} changes the query.`, true);
}

/** Values that are text whatever the input: route parameters, concatenations and templates, string methods' results. */
function isStringValued(value: AstNode): boolean {
  if (value.type === 'TemplateLiteral' || (value.type === 'BinaryExpression' && value.operator === '+')) return true;
  if (/(?:^|\.)params?\.\w+$/.test(memberPath(value) ?? '')) return true;
  const callee = value.type === 'CallExpression' ? calleePath(value) ?? '' : '';
  return /^(?:String|Number|parseInt|parseFloat|encodeURIComponent)$|\.(?:substr|substring|slice|toString|trim|toLowerCase|toUpperCase|replace|padStart|padEnd|normalize)$/.test(callee);
}

function mongoValues(filter: AstNode): AstNode[] {
  return children(filter, 'properties').flatMap((property) => {
    const value = property.type === 'SpreadElement' ? child(property, 'argument') : child(property, 'value');
    if (!value) return [];
    return value.type === 'ObjectExpression' ? mongoValues(value) : [value];
  });
}
