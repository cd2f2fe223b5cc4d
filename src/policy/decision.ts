// The policy's answer: allow or deny, with a stable rule id for machines and a reason for people.
import { z } from 'zod';

export const decisionSchema = z.object({
  decision: z.enum(['allow', 'deny']).describe('Whether the command or path may be used'),
  rule: z.string().describe('Stable rule id, e.g. policy.blocked.rm-recursive-force'),
  reason: z.string().describe('Why, in words a person can act on'),
  program: z.string().optional().describe('The program the decision is about, when there is one'),
  path: z.string().optional().describe('For paths: the real path the decision is about'),
});

export type Decision = z.infer<typeof decisionSchema>;

export function allow(rule: string, reason: string, extra: { program?: string; path?: string } = {}): Decision {
  return { decision: 'allow', rule, reason, ...extra };
}

export function deny(rule: string, reason: string, extra: { program?: string; path?: string } = {}): Decision {
  return { decision: 'deny', rule, reason, ...extra };
}

/** Rules that name a dangerous act (as opposed to "not on the list"); reported first when several apply. */
export function isSpecificDenial(decision: Decision): boolean {
  return decision.decision === 'deny' && !decision.rule.startsWith('policy.program.not-allowed');
}
