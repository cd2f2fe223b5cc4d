// The security audit as an analysis kind: scripts, templates and config files; dependencies and CSRF at project level.
import { type KindDefinition, recommendByCategory } from '../kind.js';
import { resolveAdvisories } from './advisory-source.js';
import { analyseSecurityFile, analyseSecurityProject, keepSecurityFinding, securityRules } from './index.js';

const advice: Record<string, string> = {
  injection: 'Fix injection first: parameterise queries, drop shell strings and eval, and confine file paths.',
  'path-traversal': 'Confine file paths: reduce input to a file name and resolve it inside a fixed folder.',
  ssrf: 'Request only fixed hosts: build outgoing URLs from a constant origin, or check the host against an allow-list.',
  'open-redirect': 'Redirect only to relative paths or to hosts on an allow-list.',
  xxe: 'Parse XML without external entities (no noent or dtdload).',
  'log-injection': 'Log input as structured fields, or strip line breaks from it first.',
  xss: 'Escape output by default: remove raw HTML sinks or sanitise with DOMPurify; use the escaping template syntax.',
  secrets: 'Rotate every exposed credential, then move secrets to environment variables or a secret manager.',
  dependencies: 'Upgrade vulnerable dependencies to their patched versions (npm install PKG@VERSION), then re-run the audit.',
  crypto: 'Replace weak cryptography: bcrypt/scrypt/argon2 for passwords, crypto.randomBytes for tokens, AES-GCM for encryption.',
  csrf: 'Add CSRF protection to state-changing routes of cookie-authenticated apps.',
};

export const securityKind: KindDefinition = {
  rules: securityRules,
  analyseFile: analyseSecurityFile,
  keep: keepSecurityFinding,
  analyseProject: async ({ view, advisoriesFile, packageJsonText, lockfileText, lockfile, warn, advisoryOptions, onAdvisorySource }) => {
    const needsAdvisories = view.packageJson !== null || [...view.files.values()].some((file) => file.vendored);
    if (!needsAdvisories) return analyseSecurityProject(view, [], { packageJson: packageJsonText, lockfile: lockfileText, lockfileName: lockfile }, warn);
    const resolved = await resolveAdvisories(view.root, view.installed, advisoriesFile, advisoryOptions);
    if (resolved.warning) warn(resolved.warning);
    onAdvisorySource(resolved.source);
    return analyseSecurityProject(view, resolved.advisories, { packageJson: packageJsonText, lockfile: lockfileText, lockfileName: lockfile }, warn);
  },
  recommend: (findings) => recommendByCategory(findings, advice),
};
