// The security audit: every file-level and project-level security rule.
import type { FileAnalyser, FileWarning, Finding, RuleMeta } from '../types.js';
import type { ProjectView } from '../view.js';
import { type Advisory } from './advisories.js';
import { checkCrypto, cryptoRules } from './crypto.js';
import { checkCsrf, csrfRule } from './csrf.js';
import { type ManifestLines, checkDependencies, dependencyRule } from './dependencies.js';
import { checkInjection, injectionRules } from './injection.js';
import { checkSecrets, secretRules } from './secrets.js';
import { checkTemplates } from './templates.js';
import { checkXss, xssRules } from './xss.js';

export const securityRules: RuleMeta[] = [
  ...Object.values(injectionRules), ...Object.values(xssRules), ...Object.values(secretRules), ...Object.values(cryptoRules), csrfRule, dependencyRule,
];

export const analyseSecurityFile: FileAnalyser = (file) => [
  ...checkInjection(file), ...checkXss(file), ...checkTemplates(file), ...checkSecrets(file), ...checkCrypto(file),
];

export function analyseSecurityProject(view: ProjectView, advisories: readonly Advisory[], texts: ManifestLines, warn: (warning: FileWarning) => void): Finding[] {
  return [...checkCsrf(view), ...checkDependencies(view, advisories, texts, warn)];
}
