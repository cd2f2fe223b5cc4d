// The two registered agents and their capabilities, as /agents lists them; config may add capabilities.
import type { Config } from '../store/config-schema.js';

export const agentNames = ['universal-agent', 'vm-agent'] as const;
export type RegisteredAgent = (typeof agentNames)[number];

export interface AgentCapability {
  name: string;
  description: string;
  /** Where it came from: built in, or the config file that added it. */
  source: 'built-in' | 'config';
}

export interface AgentDescription {
  name: RegisteredAgent;
  runsOn: string;
  summary: string;
  capabilities: { group: string; items: AgentCapability[] }[];
}

const builtIn = (name: string, description: string): AgentCapability => ({ name, description, source: 'built-in' });

const universalCategories = [
  { group: 'Code generation', items: [builtIn('component-creation', 'components with props, state, handlers and styling in the project\'s theming'), builtIn('api-endpoint-creation', 'route handlers with validation, error handling, queries, types'), builtIn('database-schema-design', 'a schema for the project\'s ORM, or plain SQL')] },
  { group: 'Code analysis', items: [builtIn('quality-assessment', 'complexity, smells, duplication, naming, structure, dependencies; a score out of 100'), builtIn('security-audit', 'injection, XSS, insecure dependencies, secrets, weak crypto, CSRF; counts per severity'), builtIn('performance-analysis', 'slow algorithms, leaks, inefficient queries, bundle size, render performance')] },
  { group: 'Code refactoring', items: [builtIn('refactoring', 'find opportunities, change code without changing behaviour, verify with the tests (/exec)')] },
  { group: 'Testing', items: [builtIn('testing', 'unit, integration and end-to-end browser tests in the project\'s runner')] },
  { group: 'Documentation', items: [builtIn('documentation', 'README, API docs, doc comments, usage examples, architecture diagrams, contributing guide')] },
  { group: 'Debugging', items: [builtIn('debugging', 'diagnose an error (or /exec output), fix it, explain it and suggest fixes')] },
];

const vmGroups: { group: string; names: string[] }[] = [
  { group: 'VM-specific', names: ['vm-management', 'container-orchestration', 'isolated-execution', 'repository-cloning', 'editor-server', 'autonomous-development', 'pull-request-automation'] },
  { group: 'Repository management', names: ['repository-analysis', 'dependency-management', 'testing-automation', 'documentation-generation', 'code-quality-analysis'] },
  { group: 'Security', names: ['secure-api-communication', 'token-budget-management', 'audit-logging', 'resource-isolation', 'credential-management'] },
  { group: 'Development workflows', names: ['full-stack-development', 'ci-cd-integration', 'git-operations', 'package-management', 'environment-setup'] },
];

const vmDescriptions: Record<string, string> = {
  'vm-management': 'container lifecycle management',
  'container-orchestration': 'multi-container coordination',
  'editor-server': 'remote code-editor server integration',
  'ci-cd-integration': 'hosted CI services',
  'dependency-management': 'the common JavaScript package managers',
  'secure-api-communication': 'an API key proxy with zero secret exposure',
  'token-budget-management': 'enforces the token budget per session (50,000 by default)',
  'audit-logging': 'a complete activity audit trail',
  'resource-isolation': 'container CPU, memory and disk limits',
  'credential-management': 'JWT-based session management',
};

export function describeAgents(config: Pick<Config, 'capabilities'>): AgentDescription[] {
  const extra = config.capabilities.map((c) => ({ name: c.name, description: c.description, source: 'config' as const }));
  return [
    {
      name: 'universal-agent',
      runsOn: 'this machine, on your project (configurable permissions)',
      summary: 'General development: plans changes, asks before applying, refines from follow-ups; runs no commands itself (use /exec).',
      capabilities: [...universalCategories, ...(extra.length ? [{ group: 'From configuration', items: extra }] : [])],
    },
    {
      name: 'vm-agent',
      runsOn: 'an isolated Docker container (no network but the gateway, no keys inside)',
      summary: 'Autonomous development on a cloned repository: installs, changes code, runs tests, commits, opens a pull request.',
      capabilities: vmGroups.map(({ group, names }) => ({ group, items: names.map((name) => builtIn(name, vmDescriptions[name] ?? name.replace(/-/g, ' '))) })),
    },
  ];
}

export function formatAgents(agents: AgentDescription[]): string {
  return agents
    .map((agent) => [
      `${agent.name} — ${agent.summary}`,
      `  runs on: ${agent.runsOn}`,
      ...agent.capabilities.flatMap(({ group, items }) => [`  ${group}:`, ...items.map((c) => `    ${c.name.padEnd(26)}${c.description}${c.source === 'config' ? ' (config)' : ''}`)]),
    ].join('\n'))
    .join('\n\n');
}
