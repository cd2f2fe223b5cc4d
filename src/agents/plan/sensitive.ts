// Decides when /auto must still ask: security-sensitive or critical tasks, and first-time complex refactors.
import type { PlanDraft } from '../../capabilities/plan-draft.js';

const sensitiveTask = /\b(auth\w*|login|logout|password|passwd|secret|credential|token|api[ -]?key|encrypt\w*|decrypt\w*|crypto\w*|hash(ing)?|permission|access control|rbac|oauth|jwt|session|csrf|xss|sql injection|sanitiz\w*|security|vulnerab\w*|firewall|sudo|chmod|production|prod deploy|migration|drop table)\b/i;
const sensitivePath = /(^|\/)(\.github\/workflows\/|\.gitlab-ci|Dockerfile|docker-compose|\.npmrc|\.yarnrc|package\.json$|package-lock\.json$|yarn\.lock$|pnpm-lock|nginx|k8s\/|helm\/|terraform|\.tf$|migrations?\/|auth|security|crypto|middleware\/auth|permissions?)/i;

/** A reason to ask for approval even in auto mode, or null when the plan is routine. */
export function isSecuritySensitive(task: string, plan: PlanDraft): string | null {
  const word = sensitiveTask.exec(task)?.[0];
  if (word) return `the task mentions "${word}", which looks security-sensitive`;
  const path = plan.steps.find((step) => sensitivePath.test(step.path))?.path;
  if (path) return `it changes ${path}, a security- or build-critical file`;
  const deletions = plan.steps.filter((step) => step.action === 'delete-file').length;
  if (deletions > 0) return `it deletes ${deletions} file${deletions === 1 ? '' : 's'}`;
  if (plan.steps.length > 8) return `it changes ${plan.steps.length} files, a complex change`;
  const secret = plan.steps.find((step) => step.content && /(-----BEGIN [A-Z ]*PRIVATE KEY-----|(api[_-]?key|secret|password)\s*[:=]\s*['"][^'"]{8,})/i.test(step.content));
  if (secret) return `${secret.path} would contain what looks like a secret`;
  return null;
}
