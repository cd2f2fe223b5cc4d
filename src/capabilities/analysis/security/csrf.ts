// CSRF: state-changing routes that a browser's cookies authenticate, in apps that mount no CSRF protection; and CORS open to every origin on such apps.
import { nonRuntimeKind } from '../code-paths.js';
import { type SecurityFacts, sessionModules } from './flows.js';
import type { Finding, RuleMeta } from '../types.js';
import type { ProjectView } from '../view.js';

export const csrfRule: RuleMeta = {
  id: 'security/csrf',
  kind: 'security',
  category: 'csrf',
  title: 'Cookie-authenticated state-changing route without CSRF protection',
  help: 'Mount CSRF protection (csrf-csrf or csrf-sync for Express, @fastify/csrf-protection, koa-csrf), or set the session cookie to SameSite=strict and check the Origin header.',
};

export const corsRule: RuleMeta = {
  id: 'security/cors-any-origin',
  kind: 'security',
  category: 'csrf',
  title: 'CORS open to every origin with credentials, or on a cookie-authenticated app',
  help: 'Allow only your own origins (origin: [\'https://app.example.com\']).',
};

/** Middleware that checks a CSRF token (mounted, not merely declared in package.json). */
const csrfModules = /^(?:csurf|@dr\.pogodin\/csurf|csrf-csrf|csrf-sync|lusca|tiny-csrf|@fastify\/csrf-protection|fastify-csrf|koa-csrf|csrf|next-csrf|@edge-csrf\/\w+)$/;
/** A cross-site form can only GET or POST (PUT, PATCH and DELETE need fetch, which a preflight stops); `ALL` includes both. */
const formMethods = new Set(['POST', 'ALL']);

export function checkCsrf(view: ProjectView): Finding[] {
  const runtime = [...view.files].filter(([path, file]) => file.security && nonRuntimeKind(path) === null);
  const mounted = new Set(runtime.flatMap(([, file]) => file.security?.mounted ?? []));
  const cookieAuth = [...mounted].some((module) => sessionModules.test(module)) || runtime.some(([, file]) => file.security?.cookieAuth);
  const protectedByToken = [...mounted].some((module) => csrfModules.test(module));
  const sameSite = runtime.some(([, file]) => file.security?.sameSiteCookies);
  const findings: Finding[] = runtime.flatMap(([path, file]) => {
    const cors = file.security?.corsAnyOrigin;
    return corsFinding(path, cors ? { ...cors, credentials: cors.credentials || file.security?.corsCredentials === true } : null, cookieAuth);
  });
  if (!cookieAuth || protectedByToken || sameSite) return findings;
  // JSON-only APIs cannot be posted to by a form: a cross-site fetch with a JSON body needs a preflight, which fails without CORS.
  const declared = Object.keys({ ...view.packageJson?.dependencies });
  const nestOnExpress = declared.includes('@nestjs/core') && !declared.includes('@nestjs/platform-fastify');
  const acceptsForms = nestOnExpress || runtime.some(([, file]) => file.security?.acceptsForms);
  for (const [path, file] of runtime) {
    const security = file.security;
    if (!security) continue;
    for (const route of acceptsForms ? security.routes : []) {
      if (!formMethods.has(route.method) || !route.authenticated) continue;
      findings.push({
        file: path, line: route.line, column: 1, ruleId: csrfRule.id, category: csrfRule.category, severity: 'Medium',
        message: `${route.method === 'ALL' ? 'Every method of' : route.method} ${route.path || 'this route'} changes state for a logged-in user, who is recognised by cookie; no CSRF token is checked.`,
        fix: csrfRule.help,
      });
    }
  }
  return findings;
}

/**
 * CORS that allows every origin with credentials is a finding of its own, whatever the CSRF protection: any site reads
 * the answers a logged-in visitor gets. Without credentials it matters only on an app that authenticates by cookie.
 */
function corsFinding(path: string, cors: SecurityFacts['corsAnyOrigin'], cookieAuth: boolean): Finding[] {
  if (!cors || (!cors.credentials && !cookieAuth)) return [];
  return [{
    file: path, line: cors.line, column: cors.column, ruleId: corsRule.id, category: corsRule.category, severity: cors.credentials ? 'High' : 'Low',
    message: cors.credentials
      ? 'CORS reflects every origin with credentials allowed: any site can act for a logged-in visitor and read the answers.'
      : 'CORS answers every origin on an app that authenticates with cookies: browsers withhold cookies under "*", but one credentials: true away, any site could act for the visitor.',
    fix: corsRule.help,
  }];
}
