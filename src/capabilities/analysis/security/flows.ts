// The per-file security pass over data flow: findings where request input reaches a sink in this file, and a summary of what each exported function's parameters reach, for callers in other files.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { isViewPath } from '../inline-scripts.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, Severity, SourceFile } from '../types.js';
import { cryptoRules } from './crypto.js';
import { checkJwt } from './jwt.js';
import { type RouteFact, findRoles, importedCallable } from './roles.js';
import { type CallTarget, type FileScope, buildScope, functionTypes, injectedImport, moduleOfName } from './scope.js';
import { type SinkCheck, type SinkContext, injectionRules, isEval, moduleOfCallee, sinksOfCall, xssRules } from './sinks.js';
import { type Labels, type Taint, analyseTaint, inputLabel, parseParamLabel } from './taint.js';
import type { TemplateOutput } from './templates.js';

/** A finding waiting for its file: made where the sink is, reported once a caller is known to pass input. */
export type SinkDraft = Omit<Finding, 'file'>;

/** A parameter or a field of one: `0`, `1`, `0.path` (see paramLabel). */
export type Slot = string;

export type FunctionFlows = {
  /** Parameter → a sink in this file. */
  sinks: { param: Slot; sink: SinkDraft }[];
  /** Parameter → an argument of a call into another module. */
  calls: { param: Slot; target: CallTarget; arg: Slot }[];
  /** Parameter → a local of a rendered view. */
  renders: { param: Slot; view: string; local: string }[];
  /** Parameter → hashed with MD5 or SHA-1 (a finding once a caller passes a password). */
  hashes?: { param: Slot; sink: SinkDraft }[];
};

/** What one script tells the project-level security rules; kept in the analysis cache with the file's findings. */
export type SecurityFacts = {
  exports: Record<string, FunctionFlows>;
  /** Calls into other modules that pass request input. */
  inputCalls: { target: CallTarget; arg: Slot; line: number }[];
  /** Calls into other modules that pass a password (a value named so, not a hash of one). */
  passwordCalls?: { target: CallTarget; arg: Slot; line: number }[];
  /** Functions of other modules registered here as route handlers. */
  handlers: (CallTarget & { param: number; line: number })[];
  /** Views rendered with request input in a local. */
  renders: { view: string; local: string; line: number }[];
  routes: RouteFact[];
  mounted: string[];
  /** Reads cookies or the session (so a browser's cookies authenticate requests). */
  cookieAuth: boolean;
  /** Sets SameSite=strict or lax on cookies. */
  sameSiteCookies: boolean;
  /** Parses HTML form bodies (see Roles). */
  acceptsForms: boolean;
  /** Allows every origin with CORS; `credentials` when cookies are allowed too. */
  corsAnyOrigin: { line: number; column: number; credentials: boolean } | null;
  /** Sends Access-Control-Allow-Credentials: true by hand (with an origin header set anywhere in the file). */
  corsCredentials?: boolean;
  /** Templates: raw outputs, judged once it is known what the views are rendered with. */
  outputs?: TemplateOutput[];
};

export function emptySecurityFacts(): SecurityFacts {
  return { exports: {}, inputCalls: [], handlers: [], renders: [], routes: [], mounted: [], cookieAuth: false, sameSiteCookies: false, acceptsForms: false, corsAnyOrigin: null };
}

/** Middleware that keeps a session in a cookie. */
export const sessionModules = /^(?:express-session|cookie-session|@fastify\/session|@fastify\/secure-session|fastify-session|koa-session|iron-session|koa-generic-session)$/;
const clientPath = /\.(?:[jt]sx|vue|svelte)$|(?:^|\/)(?:public|client|frontend|browser|static|www)\/|(?:^|\/)src\/(?:pages|components|hooks|views|layouts|app)\//;
const responseNames = /^(?:res|response|reply|ctx|h)$/;
const dangerousHtmlModules = /^(?:dangerously-set-html-content|react-inner-html)$/;
const sanitized = /(?:^|\.)(?:sanitize\w*|purify|escape\w*|encode\w*|xss|filterXSS|sanitizeHtml|renderToStaticMarkup)$/i;

export function checkFlows(file: SourceFile): { findings: Finding[]; security: SecurityFacts } {
  const security = emptySecurityFacts();
  if (!file.parsed) return { findings: [], security };
  const program = file.parsed.program;
  const scope = buildScope(program);
  const lineOf = (node: AstNode): number => file.at(node).line;
  const roles = findRoles(program, scope, lineOf);
  const taint = analyseTaint(program, scope, roles);
  // A view's parsed code is its inline scripts, which run in the browser.
  const clientFile = clientPath.test(file.path) || isViewPath(file.path);
  const findings: Finding[] = [];
  const byFunction = new Map<number, FunctionFlows>();
  const flowsOf = (start: number): FunctionFlows => {
    let flows = byFunction.get(start);
    if (!flows) byFunction.set(start, (flows = { sinks: [], calls: [], renders: [] }));
    return flows;
  };
  const reported = new Set<string>();
  const report = (node: AstNode, meta: RuleMeta, severity: Severity, message: string): void => {
    const finding = findingAt(file, node, meta, { severity, message, fix: meta.help });
    const key = `${finding.line}:${finding.ruleId}`;
    if (reported.has(key)) return;
    reported.add(key);
    findings.push(finding);
  };
  /** Direct input: a finding now. Parameters: a summary entry for the function they belong to. */
  const reach = (labels: Labels, at: AstNode, check: Omit<SinkCheck, 'value'>): void => {
    if (labels.has(inputLabel)) report(at, check.rule, check.severity, check.message);
    for (const label of labels) {
      const parameter = parseParamLabel(label);
      if (!parameter) continue;
      const draft = findingAt(file, at, check.rule, { severity: check.severity, message: check.message, fix: check.rule.help });
      const { file: _file, ...sink } = draft;
      flowsOf(parameter.fn).sinks.push({ param: parameter.slot, sink });
    }
  };

  walk(program, (node, ancestors) => {
    if (node.type === 'CallExpression' || node.type === 'NewExpression') {
      const context = sinkContext(scope, taint, roles.responseParam, ancestors, clientFile);
      for (const check of sinksOfCall(node, context)) reach(taint.labelsOf(check.value, ancestors, { coercionSanitizes: check.coercionSanitizes }), node, check);
      checkDynamicEval(node, scope, taint, ancestors, report);
      checkAutoescapeOff(node, scope, report);
      const target = callTarget(node, scope, ancestors);
      const hashed = brokenHashInput(node, scope);
      if (hashed) {
        for (const label of taint.labelsOf(hashed.input, ancestors)) {
          const parameter = parseParamLabel(label);
          if (!parameter) continue;
          const { file: _file, ...sink } = findingAt(file, node, cryptoRules.passwordHash, { severity: 'High', message: `${hashed.algorithm} hashes the password it is given: it is broken and fast.`, fix: cryptoRules.passwordHash.help });
          const flows = flowsOf(parameter.fn);
          (flows.hashes ??= []).push({ param: parameter.slot, sink });
        }
      }
      if (target) {
        for (const { value, arg } of argumentSlots(children(node, 'arguments'))) {
          if (isPasswordValue(value)) (security.passwordCalls ??= []).push({ target, arg, line: lineOf(node) });
          const labels = taint.labelsOf(value, ancestors);
          if (labels.has(inputLabel)) security.inputCalls.push({ target, arg, line: lineOf(node) });
          for (const label of labels) {
            const parameter = parseParamLabel(label);
            if (parameter) flowsOf(parameter.fn).calls.push({ param: parameter.slot, target, arg });
          }
        }
      }
      recordRender(node, context, taint, ancestors, security, flowsOf, lineOf);
      recordWebFacts(node, scope, security, lineOf, file, (value) => reflectsOrigin(value, taint, ancestors));
    } else if (node.type === 'AssignmentExpression') {
      const left = child(node, 'left');
      const property = left?.type === 'MemberExpression' ? identifierName(child(left, 'property')) : null;
      const value = child(node, 'right');
      if ((property === 'innerHTML' || property === 'outerHTML') && value && !isConstant(value, taint, ancestors) && !isSanitized(value)) {
        const fromInput = taint.isTainted(value, ancestors);
        report(node, xssRules.domSink, fromInput ? 'High' : 'Medium', fromInput ? `${property} is set from the page URL, a message or request input; any markup in it runs.` : `${property} is set from a dynamic value; any markup in it runs.`);
      }
    } else if (node.type === 'JSXAttribute' || node.type === 'JSXOpeningElement') {
      checkJsx(node, scope, taint, ancestors, report);
    } else if (node.type === 'ReturnStatement') {
      checkNestReturn(node, roles.nestMethods, taint, ancestors, reach);
    } else if (node.type === 'MemberExpression' && /^(?:req|request|ctx)\.(?:cookies|signedCookies|session)$|^ctx\.cookies\.get$/.test(memberPath(node) ?? '')) {
      security.cookieAuth = true;
    }
    return undefined;
  });
  for (const finding of checkJwt(file, scope)) findings.push(finding);

  for (const [key, fn] of scope.exports) {
    const flows = byFunction.get(fn.start);
    if (flows && (flows.sinks.length > 0 || flows.calls.length > 0 || flows.renders.length > 0 || flows.hashes)) security.exports[key] = flows;
  }
  security.handlers = roles.importedHandlers;
  security.routes = roles.routes;
  security.mounted = [...new Set(roles.mounted)];
  security.acceptsForms = roles.acceptsForms;
  return { findings, security };
}

/** `swig.setDefaults({ autoescape: false })`, `nunjucks.configure({ autoescape: false })`, Handlebars' `noEscape: true`: every template output becomes raw HTML. */
function checkAutoescapeOff(call: AstNode, scope: FileScope, report: (node: AstNode, meta: RuleMeta, severity: Severity, message: string) => void): void {
  const module = moduleOfCallee(call, scope);
  if (!module || !/^(?:swig|swig-templates|nunjucks|handlebars|hbs|express-handlebars)$/.test(module)) return;
  for (const options of children(call, 'arguments').filter((argument) => argument.type === 'ObjectExpression')) {
    for (const property of children(options, 'properties')) {
      const key = identifierName(child(property, 'key'));
      const value = child(property, 'value');
      const off = (key === 'autoescape' && value?.type === 'Literal' && value.value === false) || (key === 'noEscape' && value?.type === 'Literal' && value.value === true);
      if (off) report(property, xssRules.template, 'High', `${module} is configured with ${key}: ${String(value?.value)}: every value its templates output is HTML, unescaped.`);
    }
  }
}

/** `createHash('md5').update(x)`, `md5(x)`, `CryptoJS.SHA1(x)`: the value hashed with a broken hash, or null. */
function brokenHashInput(call: AstNode, scope: FileScope): { input: AstNode; algorithm: string } | null {
  const callee = calleePath(call) ?? '';
  const first = children(call, 'arguments')[0];
  if (!first) return null;
  const object = child(child(call, 'callee') ?? call, 'object');
  if (/\.update$/.test(callee) && object?.type === 'CallExpression' && /(?:^|\.)createHash$/.test(calleePath(object) ?? '')) {
    const algorithm = staticString(children(object, 'arguments')[0] ?? null)?.toLowerCase() ?? '';
    return /^(?:md4|md5|sha1|sha-1)$/.test(algorithm) ? { input: first, algorithm } : null;
  }
  const module = moduleOfCallee(call, scope);
  if (module && /^(?:md5|blueimp-md5|js-md5|md5-hex|sha1|js-sha1|crypto-js(?:\/(?:md5|sha1))?)$/.test(module) && (!callee.includes('.') || /\.(?:MD5|SHA1|md5|sha1)$/.test(callee))) {
    return { input: first, algorithm: /sha1/i.test(`${module} ${callee}`) ? 'SHA-1' : 'MD5' };
  }
  return null;
}

/** `password`, `user.password`, `req.body.newPassword`; not `passwordHash`. */
function isPasswordValue(node: AstNode): boolean {
  const path = memberPath(node) ?? '';
  return /(?:^|\.)(?:new|old|current|plain)?pass(?:word|wd)$|(?:^|\.)pwd$/i.test(path) && !/hash|digest|crypt|salt/i.test(path);
}

/** eval or Function on a string built at run time (not from input: that is code injection). */
function checkDynamicEval(call: AstNode, scope: FileScope, taint: Taint, ancestors: readonly AstNode[], report: (node: AstNode, meta: RuleMeta, severity: Severity, message: string) => void): void {
  const callee = calleePath(call) ?? '';
  const args = children(call, 'arguments');
  if (!isEval(callee, moduleOfCallee(call, scope)) || args.length === 0) return;
  // Only Function takes code in every argument; eval and vm's evaluators take it first, then a context, a file name or options.
  const code = /(?:^|\.)Function$/.test(callee) ? args : args.slice(0, 1);
  const dynamic = code.filter((argument) => staticString(argument) === null && !isConstant(argument, taint, ancestors));
  if (dynamic.length > 0 && !dynamic.some((argument) => taint.isTainted(argument, ancestors))) {
    report(call, injectionRules.evalDynamic, 'Medium', `${callee}() evaluates a string built at run time.`);
  }
}

/** A literal, or a name given a literal or a template of literals once (an inline script the developer wrote). */
function isConstant(value: AstNode, taint: Taint, ancestors: readonly AstNode[]): boolean {
  if (staticString(value) !== null) return true;
  const init = value.type === 'Identifier' ? taint.initialiser(value.name as string, ancestors) : null;
  if (!init) return false;
  if (staticString(init) !== null) return true;
  // `(function () { … return \`(${fn.toString()})()\`; })()`: code the file writes for itself.
  let callee = init.type === 'CallExpression' ? child(init, 'callee') : null;
  while (callee?.type === 'ParenthesizedExpression') callee = child(callee, 'expression');
  if (callee && functionTypes.has(callee.type) && children(init, 'arguments').length === 0) return true;
  return init.type === 'TemplateLiteral' && children(init, 'expressions').every((expression) => expression.type === 'Identifier' || staticString(expression) !== null) && taint.labelsOf(init, ancestors).size === 0;
}

/** Arguments by slot: an object literal is passed field by field (`0.path`), anything else whole (`0`). */
function argumentSlots(args: readonly AstNode[]): { value: AstNode; arg: Slot }[] {
  return args.flatMap((argument, index) => {
    if (argument.type !== 'ObjectExpression') return [{ value: argument, arg: String(index) }];
    return children(argument, 'properties').flatMap((property) => {
      const key = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
      const value = property.type === 'SpreadElement' ? child(property, 'argument') : child(property, 'value');
      if (!value) return [];
      return [{ value, arg: key && property.type !== 'SpreadElement' && !property.computed ? `${index}.${key}` : String(index) }];
    });
  });
}

function isSanitized(value: AstNode): boolean {
  return value.type === 'CallExpression' && sanitized.test(calleePath(value) ?? '');
}

function sinkContext(scope: FileScope, taint: Taint, responseParam: Map<AstNode, number>, ancestors: readonly AstNode[], clientFile: boolean): SinkContext {
  const follow = (node: AstNode | null, depth = 0): AstNode | null => {
    if (node?.type === 'Identifier' && depth < 4) {
      const init = taint.initialiser(node.name as string, ancestors);
      return init ? follow(init, depth + 1) : node;
    }
    return node;
  };
  const leadingText = (node: AstNode | null): string | null => {
    const value = follow(node);
    if (!value) return null;
    const text = staticString(value);
    if (text !== null) return text;
    if (value.type === 'TemplateLiteral') return (children(value, 'quasis')[0]?.value as { cooked?: string } | undefined)?.cooked ?? null;
    if (value.type === 'BinaryExpression' && value.operator === '+') return leadingText(child(value, 'left'));
    return null;
  };
  const staticText = (node: AstNode | null): string => {
    const value = follow(node);
    if (!value) return '';
    const text = staticString(value);
    if (text !== null) return text;
    if (value.type === 'TemplateLiteral') return children(value, 'quasis').map((quasi) => (quasi.value as { cooked?: string }).cooked ?? '').join(' ');
    if (value.type === 'BinaryExpression') return `${staticText(child(value, 'left'))} ${staticText(child(value, 'right'))}`;
    if (value.type === 'CallExpression') return children(value, 'arguments').map(staticText).join(' ');
    return '';
  };
  const responseNamesHere = new Set<string>();
  for (const ancestor of ancestors) {
    const index = responseParam.get(ancestor);
    const name = index === undefined ? null : identifierName(children(ancestor, 'params')[index] ?? null);
    if (name) responseNamesHere.add(name);
  }
  const isStringLike = (node: AstNode | null): boolean => {
    if (!node) return false;
    if (node.type === 'TemplateLiteral' || node.type === 'BinaryExpression' || node.type === 'MemberExpression') return true;
    if (node.type !== 'Identifier') return false;
    const value = follow(node);
    return value === node || (value !== null && /^(?:TemplateLiteral|BinaryExpression|MemberExpression|Literal)$/.test(value.type));
  };
  return {
    scope,
    clientFile,
    leadingText,
    staticText,
    isStringLike,
    isResponse: (node) => {
      const root = memberPath(node)?.split('.')[0] ?? '';
      return responseNamesHere.has(root) || responseNames.test(root);
    },
    resolved: (node) => follow(node) ?? node,
    objectLiteral: (node) => {
      const value = follow(node);
      return value?.type === 'ObjectExpression' ? value : null;
    },
    originModule: (node) => {
      const value = follow(node);
      const callee = value?.type === 'CallExpression' || value?.type === 'NewExpression' ? child(value, 'callee') : value;
      const root = memberPath(callee)?.split('.')[0];
      return root ? scope.imports.get(root)?.module ?? null : null;
    },
  };
}

/** The function of another module a call reaches: an import, `ns.fn`, or `this.service.method` on an injected service. */
function callTarget(call: AstNode, scope: FileScope, ancestors: readonly AstNode[]): CallTarget | null {
  const callee = child(call, 'callee');
  if (!callee) return null;
  const path = memberPath(callee);
  if (path?.startsWith('this.')) {
    const [, field, method, ...rest] = path.split('.');
    if (!field || !method || rest.length > 0) return null;
    const owner = [...ancestors].reverse().find((ancestor) => scope.classOf.has(ancestor));
    const cls = owner ? scope.classOf.get(owner) : undefined;
    const imported = cls ? injectedImport(scope, cls, field) : undefined;
    return imported ? { module: imported.module, key: `${imported.name === '*' ? 'default' : imported.name}.${method}` } : null;
  }
  const target = importedCallable(callee, scope);
  // Packages have no summaries; project files are reached relatively, through aliases or from baseUrl (resolved at project level).
  return target && !target.module.startsWith('node:') ? target : null;
}

/** `res.render('view', { name: value })`: which locals carry input (or a parameter). */
function recordRender(call: AstNode, context: SinkContext, taint: Taint, ancestors: readonly AstNode[], security: SecurityFacts, flowsOf: (start: number) => FunctionFlows, lineOf: (node: AstNode) => number): void {
  if (call.type !== 'CallExpression' || !/\.render$/.test(calleePath(call) ?? '') || !context.isResponse(child(child(call, 'callee') ?? call, 'object'))) return;
  const [viewNode, locals] = children(call, 'arguments');
  const view = staticString(viewNode ?? null);
  if (!view || locals?.type !== 'ObjectExpression') return;
  for (const property of children(locals, 'properties')) {
    const local = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
    if (!local) continue;
    const labels = taint.labelsOf(child(property, 'value'), ancestors);
    if (labels.has(inputLabel)) security.renders.push({ view, local, line: lineOf(call) });
    for (const label of labels) {
      const parameter = parseParamLabel(label);
      if (parameter) flowsOf(parameter.fn).renders.push({ param: parameter.slot, view, local });
    }
  }
}

/** CORS for any origin, and SameSite on the session cookie (set in the options of session middleware). */
function recordWebFacts(call: AstNode, scope: FileScope, security: SecurityFacts, lineOf: (node: AstNode) => number, file: SourceFile, fromRequest: (value: AstNode | null) => boolean): void {
  const callee = calleePath(call) ?? '';
  const args = children(call, 'arguments');
  const option = (options: AstNode | undefined, key: string): AstNode | null => {
    const property = options?.type === 'ObjectExpression' ? children(options, 'properties').find((candidate) => identifierName(child(candidate, 'key')) === key) : undefined;
    return property ? child(property, 'value') : null;
  };
  const isTrue = (value: AstNode | null): boolean => value?.type === 'Literal' && value.value === true;
  const anyOrigin = (options: AstNode | undefined): boolean => {
    const origin = option(options, 'origin');
    return staticString(origin) === '*' || isTrue(origin);
  };
  const options = /\.register$/.test(callee) ? args[1] : args[0];
  if ((/(?:^|\.)(?:cors|enableCors)$/.test(callee) || /\.register$/.test(callee)) && anyOrigin(options)) {
    security.corsAnyOrigin ??= { line: lineOf(call), column: file.at(call).column, credentials: isTrue(option(options, 'credentials')) };
  } else if (/\.(?:setHeader|header|set)$/.test(callee) && /^access-control-allow-origin$/i.test(staticString(args[0] ?? null) ?? '') && (staticString(args[1] ?? null) === '*' || fromRequest(args[1] ?? null))) {
    security.corsAnyOrigin ??= { line: lineOf(call), column: file.at(call).column, credentials: false };
  }
  if (/\.(?:setHeader|header|set)$/.test(callee) && /^access-control-allow-credentials$/i.test(staticString(args[0] ?? null) ?? '') && (isTrue(args[1] ?? null) || staticString(args[1] ?? null) === 'true')) {
    security.corsCredentials = true;
  }
  const module = moduleOfCallee(call, scope) ?? (/\.register$/.test(callee) && args[0] ? moduleOfName(scope, memberPath(args[0])?.split('.')[0] ?? '') : null);
  if (!module || !sessionModules.test(module)) return;
  walk(call, (node) => {
    if (node.type === 'Property' && identifierName(child(node, 'key')) === 'sameSite') {
      const value = child(node, 'value');
      if (/^(?:strict|lax)$/i.test(staticString(value) ?? '') || (value?.type === 'Literal' && value.value === true)) security.sameSiteCookies = true;
    }
    return node === call || node.type !== 'CallExpression';
  });
}

/**
 * The allowed origin is whatever the request says (its Origin header, a query parameter), not checked against a list
 * first: no `if (allowed.includes(origin))` or ternary around the header.
 */
function reflectsOrigin(value: AstNode | null, taint: Taint, ancestors: readonly AstNode[]): boolean {
  if (!value || !taint.isTainted(value, ancestors)) return false;
  return !ancestors.some((ancestor) => ancestor.type === 'IfStatement' || ancestor.type === 'ConditionalExpression' || ancestor.type === 'SwitchStatement');
}

function checkJsx(node: AstNode, scope: FileScope, taint: Taint, ancestors: readonly AstNode[], report: (node: AstNode, meta: RuleMeta, severity: Severity, message: string) => void): void {
  let value: AstNode | null = null;
  let at: AstNode = node;
  if (node.type === 'JSXAttribute' && identifierName(child(node, 'name')) === 'dangerouslySetInnerHTML') {
    const expression = child(child(node, 'value') ?? node, 'expression');
    const html = expression?.type === 'ObjectExpression' ? children(expression, 'properties').find((property) => identifierName(child(property, 'key')) === '__html') : null;
    value = expression?.type === 'ObjectExpression' ? (html ? child(html, 'value') : null) : expression;
  } else if (node.type === 'JSXOpeningElement') {
    const tag = identifierName(child(node, 'name'));
    const imported = tag ? scope.imports.get(tag) : undefined;
    if (!imported || !dangerousHtmlModules.test(imported.module)) return;
    const attribute = children(node, 'attributes').find((candidate) => identifierName(child(candidate, 'name')) === 'html');
    value = attribute ? child(child(attribute, 'value') ?? attribute, 'expression') : null;
    at = attribute ?? node;
  } else {
    return;
  }
  if (!value || isConstant(value, taint, ancestors) || isSanitized(value)) return;
  const fromInput = taint.isTainted(value, ancestors);
  report(at, xssRules.dangerouslySetInnerHTML, fromInput ? 'High' : 'Medium', fromInput ? 'HTML from the page URL or request input is rendered as is.' : 'HTML that is not sanitised here is rendered as is.');
}

/** NestJS: `@Redirect()` methods returning `{ url }` from input; methods with a text/html content type returning input. */
function checkNestReturn(node: AstNode, nestMethods: Map<AstNode, { redirect: boolean; contentType: string | null }>, taint: Taint, ancestors: readonly AstNode[], reach: (labels: Labels, at: AstNode, check: Omit<SinkCheck, 'value'>) => void): void {
  const fn = [...ancestors].reverse().find((ancestor) => functionTypes.has(ancestor.type));
  const method = fn ? nestMethods.get(fn) : undefined;
  const value = child(node, 'argument');
  if (!method || !value) return;
  if (method.redirect && value.type === 'ObjectExpression') {
    const url = children(value, 'properties').find((property) => identifierName(child(property, 'key')) === 'url');
    const target = url ? child(url, 'value') : null;
    if (target) reach(taint.labelsOf(target, ancestors), node, { rule: injectionRules.redirect, severity: 'Medium', message: 'The @Redirect() handler sends the user to a URL taken from the request.' });
  } else if (method.contentType && /html/i.test(method.contentType) && /^(?:Identifier|TemplateLiteral|BinaryExpression|MemberExpression)$/.test(value.type)) {
    reach(taint.labelsOf(value, ancestors), node, { rule: xssRules.reflected, severity: 'High', message: 'The handler returns request input as text/html.' });
  }
}
