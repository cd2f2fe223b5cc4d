// CSRF: state-changing routes of Express-like apps that authenticate with cookies and have no CSRF protection.
import { allDependencies, packageNameOf } from '../../../project/detect.js';
import type { Finding, RuleMeta } from '../types.js';
import type { ProjectView } from '../view.js';

export const csrfRule: RuleMeta = {
  id: 'security/csrf',
  kind: 'security',
  category: 'csrf',
  title: 'State-changing route without CSRF protection',
  help: 'Add CSRF protection (csrf-csrf or csrf-sync for Express, @fastify/csrf-protection, koa-csrf), or set session cookies with SameSite=strict and check the Origin header.',
};

const cookieAuthPackages = new Set(['cookie-parser', 'express-session', 'cookie-session', 'passport', '@fastify/cookie', '@fastify/session', '@fastify/secure-session', 'koa-session', 'iron-session']);
const csrfPackages = new Set(['csurf', 'csrf-csrf', 'csrf-sync', 'lusca', 'tiny-csrf', '@fastify/csrf-protection', 'koa-csrf', 'csrf', '@dr.pogodin/csurf', 'next-csrf', '@edge-csrf/nextjs']);
const serverPackages = new Set(['express', 'fastify', 'koa', '@koa/router', 'koa-router', 'restify', 'polka', 'hono', 'router']);

export function checkCsrf(view: ProjectView): Finding[] {
  const imported = new Set<string>();
  for (const file of view.files.values()) for (const fact of file.facts?.imports ?? []) {
    const name = packageNameOf(fact.source);
    if (name) imported.add(name);
  }
  const declared = new Set(Object.keys(allDependencies(view.packageJson)));
  const uses = (names: Set<string>): boolean => [...names].some((name) => imported.has(name) || declared.has(name));
  if (!uses(serverPackages) || !uses(cookieAuthPackages) || uses(csrfPackages)) return [];
  const findings: Finding[] = [];
  for (const [path, file] of view.files) {
    for (const route of file.facts?.routes ?? []) {
      if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)) continue;
      findings.push({
        file: path, line: route.line, column: 1, ruleId: csrfRule.id, category: csrfRule.category, severity: 'Medium',
        message: `${route.method} ${route.path} changes state; the app reads cookies but no CSRF protection is installed.`,
        fix: csrfRule.help,
      });
    }
  }
  return findings;
}
