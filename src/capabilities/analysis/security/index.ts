// The security audit: every file-level and project-level security rule.
import type { FileWarning, Finding, RuleMeta, SourceFile } from '../types.js';
import type { ProjectView } from '../view.js';
import { type Advisory } from './advisories.js';
import { checkCrypto, cryptoRules } from './crypto.js';
import { checkCsrf, corsRule, csrfRule } from './csrf.js';
import { type ManifestLines, checkDependencies, dependencyRule } from './dependencies.js';
import { type SecurityFacts, checkFlows, emptySecurityFacts } from './flows.js';
import { jwtPatternRules } from './jwt.js';
import { linkFlows } from './link.js';
import { checkSecrets, secretRules } from './secrets.js';
import { injectionRules, xssRules } from './sinks.js';
import { isTemplatePath } from '../kind-files.js';
import { checkTemplates } from './templates.js';

export const securityRules: RuleMeta[] = [
  ...Object.values(injectionRules), ...Object.values(xssRules), ...Object.values(secretRules), ...Object.values(cryptoRules), ...Object.values(jwtPatternRules), csrfRule, corsRule, dependencyRule,
];

export function analyseSecurityFile(file: SourceFile): { findings: Finding[]; security?: SecurityFacts } {
  if (isTemplatePath(file.path)) {
    const templates = checkTemplates(file);
    const flows = file.parsed ? checkFlows(file) : null;
    return {
      findings: [...templates.findings, ...(flows?.findings ?? []), ...checkSecrets(file)],
      security: { ...(flows?.security ?? emptySecurityFacts()), outputs: templates.outputs },
    };
  }
  const flows = checkFlows(file);
  return { findings: [...flows.findings, ...checkSecrets(file), ...checkCrypto(file)], ...(file.parsed ? { security: flows.security } : {}) };
}

export function analyseSecurityProject(view: ProjectView, advisories: readonly Advisory[], texts: ManifestLines, warn: (warning: FileWarning) => void): Finding[] {
  return [...linkFlows(view).filter((finding) => keepSecurityFinding(finding, view)), ...checkCsrf(view), ...checkDependencies(view, advisories, texts, warn)];
}

/** NoSQL injection needs a MongoDB driver: SQL ORMs (Sequelize, TypeORM, Prisma) have no string operators to inject. */
export function keepSecurityFinding(finding: Finding, view: ProjectView): boolean {
  if (finding.ruleId !== injectionRules.nosql.id || view.packageJson === null) return true;
  const declared = Object.keys({ ...view.packageJson?.dependencies, ...view.packageJson?.devDependencies });
  return declared.some((name) => /^(?:mongoose|mongodb|monk|mongojs|@typegoose\/typegoose|mongoist)$/.test(name));
}
