// CSRF: state-changing routes that a browser's cookies authenticate, in apps that mount no CSRF protection; and CORS open to every origin on such apps.
import { nonRuntimeKind } from '../source.js';
import { sessionModules } from './flows.js';
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
  title: 'CORS open to every origin on a cookie-authenticated app',
  help: 'Allow only your own origins (origin: [\'https://app.example.com\']).',
};

/** Middleware that checks a CSRF token (mounted, not merely declared in package.json). */
const csrfModules = /^(?:csurf|@dr\.pogodin\/csurf|csrf-csrf|csrf-sync|lusca|tiny-csrf|@fastify\/csrf-protection|fastify-csrf|koa-csrf|csrf|next-csrf|@edge-csrf\/\w+)$/;
const stateChanging = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'ALL']);

export function checkCsrf(view: ProjectView): Finding[] {
  const runtime = [...view.files].filter(([path, file]) => file.security && nonRuntimeKind(path) === null);
  const mounted = new Set(runtime.flatMap(([, file]) => file.security?.mounted ?? []));
  const cookieAuth = [...mounted].some((module) => sessionModules.test(module)) || runtime.some(([, file]) => file.security?.cookieAuth);
  const protectedByToken = [...mounted].some((module) => csrfModules.test(module));
  const sameSite = runtime.some(([, file]) => file.security?.sameSiteCookies);
  if (!cookieAuth || protectedByToken || sameSite) return [];
  const findings: Finding[] = [];
  for (const [path, file] of runtime) {
    const security = file.security;
    if (!security) continue;
    for (const route of security.routes) {
      if (!stateChanging.has(route.method) || !route.authenticated) continue;
      findings.push({
        file: path, line: route.line, column: 1, ruleId: csrfRule.id, category: csrfRule.category, severity: 'Medium',
        message: `${route.method === 'ALL' ? 'Every method of' : route.method} ${route.path || 'this route'} changes state for a logged-in user, who is recognised by cookie; no CSRF token is checked.`,
        fix: csrfRule.help,
      });
    }
    if (security.corsAnyOrigin) {
      findings.push({ file: path, line: security.corsAnyOrigin.line, column: security.corsAnyOrigin.column, ruleId: corsRule.id, category: corsRule.category, severity: 'Medium', message: 'CORS allows every origin, and the app authenticates with cookies: any site can call it from a visitor\'s browser.', fix: corsRule.help });
    }
  }
  return findings;
}
