// The per-file security pass over data flow: findings where request input reaches a sink in this file, and a summary of what each exported function's parameters reach, for callers in other files.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, Severity, SourceFile } from '../types.js';
import { checkJwt } from './jwt.js';
import { type RouteFact, findRoles, importedCallable } from './roles.js';
import { type CallTarget, type FileScope, buildScope, functionTypes, injectedImport, moduleOfName } from './scope.js';
import { type SinkCheck, type SinkContext, injectionRules, isEval, moduleOfCallee, sinksOfCall, xssRules } from './sinks.js';
import { type Labels, type Taint, analyseTaint, inputLabel } from './taint.js';
import type { TemplateOutput } from './templates.js';

/** A finding waiting for its file: made where the sink is, reported once a caller is known to pass input. */
export type SinkDraft = Omit<Finding, 'file'>;

export type FunctionFlows = {
  /** Parameter → a sink in this file. */
  sinks: { param: number; sink: SinkDraft }[];
  /** Parameter → an argument of a call into another module. */
  calls: { param: number; target: CallTarget; arg: number }[];
  /** Parameter → a local of a rendered view. */
  renders: { param: number; view: string; local: string }[];
};

/** What one script tells the project-level security rules; kept in the analysis cache with the file's findings. */
export type SecurityFacts = {
  exports: Record<string, FunctionFlows>;
  /** Calls into other modules that pass request input. */
  inputCalls: { target: CallTarget; arg: number; line: number }[];
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
  /** Allows every origin with CORS. */
  corsAnyOrigin: { line: number; column: number } | null;
  /** Templates: raw outputs, judged once it is known what the views are rendered with. */
  outputs?: TemplateOutput[];
};

export function emptySecurityFacts(): SecurityFacts {
  return { exports: {}, inputCalls: [], handlers: [], renders: [], routes: [], mounted: [], cookieAuth: false, sameSiteCookies: false, corsAnyOrigin: null };
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
  const clientFile = clientPath.test(file.path);
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
      const match = /^p(\d+):(\d+)$/.exec(label);
      if (!match) continue;
      const draft = findingAt(file, at, check.rule, { severity: check.severity, message: check.message, fix: check.rule.help });
      const { file: _file, ...sink } = draft;
      flowsOf(Number(match[1])).sinks.push({ param: Number(match[2]), sink });
    }
  };

  walk(program, (node, ancestors) => {
    if (node.type === 'CallExpression' || node.type === 'NewExpression') {
      const context = sinkContext(scope, taint, roles.responseParam, ancestors, clientFile);
      for (const check of sinksOfCall(node, context)) reach(taint.labelsOf(check.value, ancestors, { coercionSanitizes: check.coercionSanitizes }), node, check);
      checkDynamicEval(node, scope, taint, ancestors, report);
      const target = callTarget(node, scope, ancestors);
      if (target) {
        children(node, 'arguments').forEach((argument, arg) => {
          const labels = taint.labelsOf(argument, ancestors);
          if (labels.has(inputLabel)) security.inputCalls.push({ target, arg, line: lineOf(node) });
          for (const label of labels) {
            const match = /^p(\d+):(\d+)$/.exec(label);
            if (match) flowsOf(Number(match[1])).calls.push({ param: Number(match[2]), target, arg });
          }
        });
      }
      recordRender(node, context, taint, ancestors, security, flowsOf, lineOf);
      recordWebFacts(node, scope, security, lineOf, file);
    } else if (node.type === 'AssignmentExpression') {
      const left = child(node, 'left');
      const property = left?.type === 'MemberExpression' ? identifierName(child(left, 'property')) : null;
      const value = child(node, 'right');
      if ((property === 'innerHTML' || property === 'outerHTML') && value && staticString(value) === null && !isSanitized(value)) {
        const fromInput = taint.isTainted(value, ancestors);
        report(node, xssRules.domSink, fromInput ? 'High' : 'Medium', fromInput ? `${property} is set from the page URL or request input; any markup in it runs.` : `${property} is set from a dynamic value; any markup in it runs.`);
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
    if (flows && (flows.sinks.length > 0 || flows.calls.length > 0 || flows.renders.length > 0)) security.exports[key] = flows;
  }
  security.handlers = roles.importedHandlers;
  security.routes = roles.routes;
  security.mounted = [...new Set(roles.mounted)];
  return { findings, security };
}

/** eval or Function on a string built at run time (not from input: that is code injection). */
function checkDynamicEval(call: AstNode, scope: FileScope, taint: Taint, ancestors: readonly AstNode[], report: (node: AstNode, meta: RuleMeta, severity: Severity, message: string) => void): void {
  const callee = calleePath(call) ?? '';
  const args = children(call, 'arguments');
  if (!isEval(callee, moduleOfCallee(call, scope)) || args.length === 0) return;
  const dynamic = args.filter((argument) => staticString(argument) === null);
  if (dynamic.length > 0 && !dynamic.some((argument) => taint.isTainted(argument, ancestors))) {
    report(call, injectionRules.evalDynamic, 'Medium', `${callee}() evaluates a string built at run time.`);
  }
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
  return {
    scope,
    clientFile,
    leadingText,
    staticText,
    isResponse: (node) => {
      const root = memberPath(node)?.split('.')[0] ?? '';
      return responseNamesHere.has(root) || responseNames.test(root);
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
  return target && !/^(?:node:)?[a-z_][\w-]*$/.test(target.module) && (target.module.startsWith('.') || target.module.startsWith('@/') || target.module.startsWith('~/') || target.module.startsWith('src/')) ? target : null;
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
      const match = /^p(\d+):(\d+)$/.exec(label);
      if (match) flowsOf(Number(match[1])).renders.push({ param: Number(match[2]), view, local });
    }
  }
}

/** CORS for any origin, and SameSite on the session cookie (set in the options of session middleware). */
function recordWebFacts(call: AstNode, scope: FileScope, security: SecurityFacts, lineOf: (node: AstNode) => number, file: SourceFile): void {
  const callee = calleePath(call) ?? '';
  const args = children(call, 'arguments');
  const anyOrigin = (options: AstNode | undefined): boolean => options?.type === 'ObjectExpression' && children(options, 'properties').some((property) => {
    const value = child(property, 'value');
    return identifierName(child(property, 'key')) === 'origin' && (staticString(value) === '*' || (value?.type === 'Literal' && value.value === true));
  });
  if ((/(?:^|\.)(?:cors|enableCors)$/.test(callee) && anyOrigin(args[0])) || (/\.register$/.test(callee) && anyOrigin(args[1]))
    || (/\.(?:setHeader|header|set)$/.test(callee) && /^access-control-allow-origin$/i.test(staticString(args[0] ?? null) ?? '') && staticString(args[1] ?? null) === '*')) {
    security.corsAnyOrigin ??= { line: lineOf(call), column: file.at(call).column };
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
  if (!value || staticString(value) !== null || isSanitized(value)) return;
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
