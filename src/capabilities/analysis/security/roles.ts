// Framework roles, not parameter names: which functions handle routes (Express, Koa, Fastify, Hapi, NestJS), which of their parameters carry the request, and how each route is protected.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { type CallTarget, type FileScope, functionTypes, moduleOfName } from './scope.js';

export type RouteFact = {
  method: string;
  path: string;
  line: number;
  /** Behind an authentication middleware or guard, or the handler checks the session or user itself. */
  authenticated: boolean;
};

export type Roles = {
  /** Function → indexes of its parameters that receive request input (a request object or a decorated value). */
  inputParams: Map<AstNode, Set<number>>;
  /** Function → index of its response parameter. */
  responseParam: Map<AstNode, number>;
  /** Functions of other modules this file registers as handlers (their request parameter's index). */
  importedHandlers: (CallTarget & { param: number; line: number })[];
  routes: RouteFact[];
  /** Modules whose middleware this file mounts (`app.use(csurf())`, `fastify.register(csrfProtection)`). */
  mounted: string[];
  /** Parses HTML form bodies (urlencoded, multipart or any content type): a cross-site form can post to it. */
  acceptsForms: boolean;
  /** NestJS route methods: their decorators' facts. */
  nestMethods: Map<AstNode, { redirect: boolean; contentType: string | null }>;
};

const routeMethods = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'options', 'head', 'use']);
const nestRouteDecorators = new Set(['Get', 'Post', 'Put', 'Patch', 'Delete', 'All', 'Options', 'Head']);
const nestInputDecorators = new Set(['Body', 'Query', 'Param', 'Headers', 'Req', 'Request', 'Ip', 'HostParam', 'UploadedFile', 'UploadedFiles', 'Cookies', 'Args', 'Payload', 'MessageBody']);
/** Middleware, guards and helpers whose names say they authenticate. */
export const authName = /auth|login|logged|passport|jwt|guard|protect|verify(?:Token|User)|require(?:User|Login|Auth|Role)|ensure|isAdmin|permission|roles?\b|acl/i;
/** What an authenticated request carries: the session, the logged-in user, or the cookie the handler reads its credential from. */
const serverSideRequestFields = /^(?:req|request|ctx)\.(?:session|user|isAuthenticated|state\.user|cookies|signedCookies|headers\.cookie)\b/;
/** Checking a token or credential: `jwt.verify(token, key)`, `jose.jwtVerify`, `passport.authenticate(…)`. */
const verifiesCredential = /(?:^|\.)(?:verify|jwtVerify|authenticate|verifyIdToken|verifySessionCookie)$/;
/**
 * Middleware that serves requests itself and reads HTML form bodies on its own: express-graphql runs a mutation posted as
 * application/x-www-form-urlencoded (its README), json-server writes what a form posts. (Apollo Server and graphql-http
 * take JSON only, which a cross-site form cannot send.)
 */
const formServers = /^(?:express-graphql|json-server)$/;
/** Session middleware: a server mounted after it gets the logged-in session with each request. */
const sessionMiddleware = /^(?:express-session|cookie-session)$/;

type LineOf = (node: AstNode) => number;

export function findRoles(program: AstNode, scope: FileScope, lineOf: LineOf): Roles {
  const roles: Roles = { inputParams: new Map(), responseParam: new Map(), importedHandlers: [], routes: [], mounted: [], acceptsForms: false, nestMethods: new Map() };
  const fileUsesAuth = { value: false };
  walk(program, (node) => {
    if (node.type === 'CallExpression') {
      registration(node, scope, roles, lineOf, fileUsesAuth);
      messageListener(node, scope, roles);
    } else if (node.type === 'AssignmentExpression') messageListener(node, scope, roles);
    else if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') nestController(node, roles, lineOf);
    else if (functionTypes.has(node.type) && !roles.inputParams.has(node) && hasHandlerSignature(node)) markHandler(node, roles);
    return undefined;
  });
  if (fileUsesAuth.value) for (const route of roles.routes) route.authenticated = true;
  return roles;
}

/**
 * Controllers written in one file and registered in another (or by a framework cadre does not model) are only known by
 * their signature: (req, res[, next]), (request, reply), (ctx, next). Handlers registered inline are found by role whatever their names.
 */
function hasHandlerSignature(fn: AstNode): boolean {
  const names = children(fn, 'params').map((param) => identifierName(param) ?? '');
  return (/^req(?:uest)?$/.test(names[0] ?? '') && /^(?:res|response|reply)$/.test(names[1] ?? '')) || (names[0] === 'ctx' && names[1] === 'next')
    || (names.length === 4 && /^err(?:or)?$/.test(names[0] ?? '') && /^req(?:uest)?$/.test(names[1] ?? ''));
}

/**
 * A browser's message handlers: `addEventListener('message', fn)` and `onmessage = fn` on a window, a frame's port or a
 * WebSocket. The event's data comes from another origin (postMessage) or from whoever writes to the socket; a handler that
 * looks at `event.origin` checks who sent it.
 */
function messageListener(node: AstNode, scope: FileScope, roles: Roles): void {
  let handler: AstNode | null = null;
  if (node.type === 'CallExpression') {
    const callee = child(node, 'callee');
    const args = children(node, 'arguments');
    const name = callee?.type === 'MemberExpression' ? identifierName(child(callee, 'property')) : identifierName(callee);
    if (name === 'addEventListener' && staticString(args[0] ?? null) === 'message') handler = args[1] ?? null;
  } else {
    const left = child(node, 'left');
    const name = left?.type === 'MemberExpression' ? identifierName(child(left, 'property')) : identifierName(left);
    if (name === 'onmessage') handler = child(node, 'right');
  }
  // `handler.bind(thisArg, …bound)`: the event comes after the bound arguments.
  let eventIndex = 0;
  const bindCallee = handler?.type === 'CallExpression' ? child(handler, 'callee') : null;
  if (handler && bindCallee?.type === 'MemberExpression' && identifierName(child(bindCallee, 'property')) === 'bind') {
    eventIndex = Math.max(0, children(handler, 'arguments').length - 1);
    handler = child(bindCallee, 'object');
  }
  if (handler?.type === 'Identifier') handler = scope.localFunctions.get(handler.name as string) ?? null;
  if (!handler || !functionTypes.has(handler.type) || children(handler, 'params').length <= eventIndex) return;
  let checksOrigin = false;
  walk(handler, (inner) => {
    if (inner.type === 'MemberExpression' && identifierName(child(inner, 'property')) === 'origin') checksOrigin = true;
    return undefined;
  });
  if (!checksOrigin) roles.inputParams.set(handler, new Set([...(roles.inputParams.get(handler) ?? []), eventIndex]));
}

function markHandler(fn: AstNode, roles: Roles): void {
  // Express error middleware is (err, req, res, next).
  const request = children(fn, 'params').length === 4 ? 1 : 0;
  const set = roles.inputParams.get(fn) ?? new Set<number>();
  set.add(request);
  roles.inputParams.set(fn, set);
  roles.responseParam.set(fn, request + 1);
}

/** `app.get('/x', auth, handler)`, `router.route('/x').post(h)`, `app.use(mw)`, `fastify.route({ handler })`, `server.route({ handler })`. */
function registration(call: AstNode, scope: FileScope, roles: Roles, lineOf: LineOf, fileUsesAuth: { value: boolean }): void {
  const callee = child(call, 'callee');
  if (callee?.type !== 'MemberExpression' || callee.computed) return;
  const method = identifierName(child(callee, 'property')) ?? '';
  const args = children(call, 'arguments');
  if (method === 'route' && args[0]?.type === 'ObjectExpression') {
    objectRoute(args[0], scope, roles, lineOf);
    return;
  }
  if (method === 'register' && args[0]) {
    const module = moduleOf(args[0], scope);
    if (module) roles.mounted.push(module);
    if (module && formModules.test(module)) roles.acceptsForms = true;
    return;
  }
  if (method === 'addContentTypeParser' && /^\*$|form-urlencoded|text\/plain|multipart/.test(staticString(args[0] ?? null) ?? (args[0]?.type === 'Literal' && 'regex' in args[0] ? '*' : ''))) {
    roles.acceptsForms = true;
    return;
  }
  if (!routeMethods.has(method)) return;
  const object = child(callee, 'object');
  if (object?.type === 'ThisExpression') return;
  const chainedPath = routeOfChain(object);
  const pathArgument = chainedPath === null && args[0] && isPathLike(args[0]) ? args[0] : null;
  const path = chainedPath ?? (pathArgument ? staticString(pathArgument) ?? '(pattern)' : null);
  if (path === null && method !== 'use') return;
  const handlers = pathArgument ? args.slice(1) : args;
  if (handlers.length === 0 || isHttpClient(object, scope)) return;
  if (method === 'use') {
    for (const handler of handlers) {
      const module = moduleOf(handler, scope);
      if (module) roles.mounted.push(module);
      if (module && parsesForms(handler, module)) roles.acceptsForms = true;
      if (authenticates(handler, scope)) fileUsesAuth.value = true;
    }
    const server = pathArgument ? handlers.find((handler) => formServers.test(moduleOf(handler, scope) ?? '')) : undefined;
    if (server) {
      roles.acceptsForms = true;
      const session = roles.mounted.some((module) => sessionMiddleware.test(module));
      roles.routes.push({ method: 'ALL', path: path ?? '', line: lineOf(call), authenticated: session || handlers.some((handler) => handler !== server && authenticates(handler, scope)) });
    }
  }
  if (!handlers.some((handler) => inlineFunction(handler, scope) !== null || importedCallable(handler, scope) !== null)) return;
  for (const handler of handlers) bindHandler(handler, scope, roles, lineOf(call));
  if (method === 'use') return;
  const last = handlers.at(-1) as AstNode;
  const middleware = handlers.slice(0, -1);
  const authenticated = middleware.some((handler) => authenticates(handler, scope)) || checksSession(inlineFunction(last, scope));
  roles.routes.push({ method: method === 'del' ? 'DELETE' : method.toUpperCase(), path: path ?? '', line: lineOf(call), authenticated });
}

/** The path of `router.route('/x')` under a chain of verbs (`router.route('/x').get(a).post(b)`), or null. */
function routeOfChain(object: AstNode | null): string | null {
  let current = object;
  while (current?.type === 'CallExpression') {
    const callee = child(current, 'callee');
    const name = callee?.type === 'MemberExpression' ? identifierName(child(callee, 'property')) ?? '' : '';
    if (name === 'route') return staticString(children(current, 'arguments')[0] ?? null) ?? '(pattern)';
    if (!routeMethods.has(name) || name === 'use') return null;
    current = child(callee as AstNode, 'object');
  }
  return null;
}

function objectRoute(options: AstNode, scope: FileScope, roles: Roles, lineOf: LineOf): void {
  const property = (key: string): AstNode | null => child(children(options, 'properties').find((candidate) => identifierName(child(candidate, 'key')) === key) ?? options, 'value');
  const handler = property('handler');
  if (!handler || handler === options) return;
  bindHandler(handler, scope, roles, lineOf(options));
  const method = staticString(property('method')) ?? 'GET';
  const guards = ['preHandler', 'onRequest', 'preValidation', 'auth', 'options'].map(property).filter((value): value is AstNode => value !== null && value !== options);
  roles.routes.push({ method: method.toUpperCase(), path: staticString(property('url')) ?? staticString(property('path')) ?? '', line: lineOf(options), authenticated: guards.some((guard) => authName.test(describe(guard))) });
}

function bindHandler(handler: AstNode, scope: FileScope, roles: Roles, line: number): void {
  const fn = inlineFunction(handler, scope);
  if (fn) {
    markHandler(fn, roles);
    return;
  }
  const target = importedCallable(handler, scope);
  if (target) roles.importedHandlers.push({ ...target, param: 0, line });
}

/** The function a handler argument is, when it is written in this file (also through wrappers such as catchAsync(fn)). */
function inlineFunction(handler: AstNode, scope: FileScope): AstNode | null {
  if (functionTypes.has(handler.type)) return handler;
  if (handler.type === 'Identifier') return scope.localFunctions.get(handler.name as string) ?? null;
  if (handler.type === 'CallExpression') {
    const wrapped = children(handler, 'arguments').find((argument) => functionTypes.has(argument.type));
    return wrapped ?? null;
  }
  return null;
}

/** `controller.create` or `create` where the name comes from another module. */
export function importedCallable(node: AstNode, scope: FileScope): CallTarget | null {
  const path = memberPath(node);
  if (!path) return null;
  const [root, ...rest] = path.split('.');
  const imported = scope.imports.get(root ?? '');
  if (!imported) return null;
  const prefix = imported.name === '*' ? [] : [imported.name];
  const key = [...prefix, ...rest].join('.') || 'default';
  return { module: imported.module, key };
}

function isPathLike(node: AstNode): boolean {
  const text = staticString(node);
  if (text !== null) return text.startsWith('/') || text === '*';
  return node.type === 'TemplateLiteral' || (node.type === 'Literal' && 'regex' in node) || node.type === 'ArrayExpression';
}

/** Body parsers that read HTML forms. */
const formModules = /^(?:@fastify\/formbody|fastify-formbody|koa-body|koa-bodyparser|@koa\/bodyparser|express-fileupload|multer|connect-multiparty|formidable|busboy|express-formidable)$/;

/** `express.urlencoded()`, `bodyParser()` or `bodyParser.urlencoded()`, or a form parser module. */
function parsesForms(handler: AstNode, module: string): boolean {
  if (formModules.test(module)) return true;
  const path = handler.type === 'CallExpression' ? calleePath(handler) ?? '' : '';
  if (module === 'body-parser') return !path.includes('.') || /\.(?:urlencoded|text)$/.test(path);
  return module === 'express' && /\.(?:urlencoded|text)$/.test(path);
}

const httpClients = /^(?:axios|got|superagent|request|needle|ky|node-fetch|undici|supertest|ofetch)$/;

/** `axios.post('/x', data, cb)` is a request, not a route. */
function isHttpClient(object: AstNode | null, scope: FileScope): boolean {
  const root = memberPath(object)?.split('.')[0] ?? (object?.type === 'CallExpression' ? memberPath(child(object, 'callee'))?.split('.')[0] : undefined);
  return root !== undefined && httpClients.test(scope.imports.get(root)?.module ?? root);
}

function moduleOf(node: AstNode, scope: FileScope): string | null {
  const target = node.type === 'CallExpression' ? child(node, 'callee') : node;
  const root = memberPath(target)?.split('.')[0];
  return root ? moduleOfName(scope, root) : null;
}

function describe(node: AstNode): string {
  if (node.type === 'CallExpression') return `${calleePath(node) ?? ''} ${children(node, 'arguments').map((argument) => staticString(argument) ?? memberPath(argument) ?? '').join(' ')}`;
  return memberPath(node) ?? '';
}

/**
 * A middleware authenticates when it checks the session, a cookie or a token: judged from its body when it is written
 * in this file (an `ensureUpload` that checks a file is not authentication), by its name only when its body is elsewhere.
 */
function authenticates(handler: AstNode, scope: FileScope): boolean {
  const local = functionTypes.has(handler.type) ? handler : handler.type === 'Identifier' ? scope.localFunctions.get(handler.name as string) ?? null : null;
  return local ? checksSession(local) : authName.test(describe(handler));
}

/** The handler reads the session, the logged-in user or the credential cookie, verifies a token, or hands the request to a helper named like an auth check. */
function checksSession(fn: AstNode | null): boolean {
  if (!fn) return false;
  let found = false;
  walk(fn, (node, ancestors) => {
    if (found) return false;
    // Writing the session (logging in) is not checking it.
    const written = ancestors.some((ancestor) => {
      const left = ancestor.type === 'AssignmentExpression' ? child(ancestor, 'left') : null;
      return left !== null && node.start >= left.start && node.end <= left.end;
    });
    if (node.type === 'MemberExpression' && !written && serverSideRequestFields.test(memberPath(node) ?? '')) found = true;
    if (node.type === 'CallExpression' && authName.test(calleePath(node) ?? '') && children(node, 'arguments').some((argument) => /^(?:req|request|ctx)$/.test(identifierName(argument) ?? ''))) found = true;
    if (node.type === 'CallExpression' && verifiesCredential.test(calleePath(node) ?? '')) found = true;
    return undefined;
  });
  return found;
}

function decoratorNames(node: AstNode): { name: string; args: AstNode[] }[] {
  return children(node, 'decorators').map((decorator) => {
    const expression = child(decorator, 'expression');
    const call = expression?.type === 'CallExpression' ? expression : null;
    return { name: identifierName(call ? child(call, 'callee') : expression) ?? memberPath(call ? child(call, 'callee') : expression)?.split('.').pop() ?? '', args: call ? children(call, 'arguments') : [] };
  });
}

/** A NestJS controller (or GraphQL resolver): route methods, decorated parameters, guards. */
function nestController(node: AstNode, roles: Roles, lineOf: LineOf): void {
  const classDecorators = decoratorNames(node);
  const controller = classDecorators.find((decorator) => /^(?:Controller|Resolver|WebSocketGateway)$/.test(decorator.name));
  if (!controller) return;
  const base = staticString(controller.args[0] ?? null) ?? '';
  const guarded = (decorators: { name: string; args: AstNode[] }[]): boolean => decorators.some((decorator) => decorator.name === 'UseGuards' && decorator.args.some((argument) => {
    const text = memberPath(argument) ?? calleePath(argument) ?? '';
    return authName.test(text) && !/csrf|throttl/i.test(text);
  }));
  const classGuarded = guarded(classDecorators);
  const body = child(node, 'body');
  for (const member of body ? children(body, 'body') : []) {
    const fn = child(member, 'value');
    if (member.type !== 'MethodDefinition' || !fn) continue;
    const decorators = decoratorNames(member);
    const route = decorators.find((decorator) => nestRouteDecorators.has(decorator.name) || /^(?:Query|Mutation|SubscribeMessage|MessagePattern|EventPattern)$/.test(decorator.name));
    children(fn, 'params').forEach((param, index) => {
      const names = decoratorNames(param).map((decorator) => decorator.name);
      if (names.some((name) => nestInputDecorators.has(name))) roles.inputParams.set(fn, new Set([...(roles.inputParams.get(fn) ?? []), index]));
      if (names.some((name) => name === 'Res' || name === 'Response')) roles.responseParam.set(fn, index);
    });
    if (!route || !nestRouteDecorators.has(route.name)) continue;
    const header = decorators.find((decorator) => decorator.name === 'Header' && /content-type/i.test(staticString(decorator.args[0] ?? null) ?? ''));
    roles.nestMethods.set(fn, { redirect: decorators.some((decorator) => decorator.name === 'Redirect'), contentType: header ? staticString(header.args[1] ?? null) : null });
    const path = `${base}/${staticString(route.args[0] ?? null) ?? ''}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
    roles.routes.push({ method: route.name === 'All' ? 'ALL' : route.name.toUpperCase(), path, line: lineOf(member), authenticated: classGuarded || guarded(decorators) });
  }
}
