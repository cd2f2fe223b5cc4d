// The security audit as an analysis kind: scripts, templates and config files; dependencies and CSRF at project level.
import { type KindDefinition, isScript, recommendByCategory } from '../kind.js';
import { isTemplatePath } from './templates.js';
import { loadAdvisories } from './advisories.js';
import { analyseSecurityFile, analyseSecurityProject, securityRules } from './index.js';

const advice: Record<string, string> = {
  injection: 'Fix injection first: parameterise queries, drop shell strings and eval, and confine file paths.',
  xss: 'Escape output by default: remove raw HTML sinks or sanitise with DOMPurify; use the escaping template syntax.',
  secrets: 'Rotate every exposed credential, then move secrets to environment variables or a secret manager.',
  dependencies: 'Upgrade vulnerable dependencies to their patched versions (npm install PKG@VERSION), then re-run the audit.',
  crypto: 'Replace weak cryptography: bcrypt/scrypt/argon2 for passwords, crypto.randomBytes for tokens, AES-GCM for encryption.',
  csrf: 'Add CSRF protection to state-changing routes of cookie-authenticated apps.',
};

export const securityKind: KindDefinition = {
  rules: securityRules,
  includes: (path) => isScript(path) || isTemplatePath(path) || (/\.(?:json|ya?ml)$/.test(path) && !/(?:^|\/)(?:package-lock|npm-shrinkwrap|composer-lock)\.json$|(?:^|\/)pnpm-lock\.yaml$/.test(path)),
  analyseFile: (file) => ({ findings: analyseSecurityFile(file) }),
  analyseProject: async ({ view, advisoriesFile, packageJsonText, lockfileText, warn }) =>
    analyseSecurityProject(view, view.packageJson ? await loadAdvisories(advisoriesFile) : [], { packageJson: packageJsonText, lockfile: lockfileText }, warn),
  recommend: (findings) => recommendByCategory(findings, advice),
};
