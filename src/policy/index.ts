// The command and path policy: what the vm-agent may run and touch.
export { checkCommand, type CommandPolicyOptions } from './command-policy.js';
export { checkPath, type PathPolicyOptions } from './path-policy.js';
export { policyCheck, type PolicyCheckInput, type PolicyCheckResult } from './cli.js';
export { allowedPrograms } from './programs.js';
export { decisionSchema, type Decision } from './decision.js';
