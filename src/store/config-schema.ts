// The zod schema of cadre's configuration: defaults, allowed values, and the help text of every key.
import { z } from 'zod';
import { vmSettingsConfigShape } from '../container/settings.js';

const patternList = z.array(z.string().min(1));

const accessRule = (what: string) =>
  z.strictObject({
    allow: patternList.default(['**']).describe(`Glob patterns of project paths universal-agent may ${what}`),
    deny: patternList
      .default(['.env*', '.git/**', '**/*.pem', '**/id_rsa*', '**/*.key'])
      .describe(`Glob patterns it may never ${what}; deny wins over allow, and lists from every layer add up`),
  });

const capability = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a kebab-case name like api-review').describe('Capability name'),
  description: z.string().min(1).describe('One line saying what it does'),
  instructions: z.string().min(1).describe('Instructions given to the agent when the capability is used'),
  tools: z.array(z.string().min(1)).default([]).describe('Names of the tools it may use'),
});

const price = z.strictObject({
  input: z.number().nonnegative().describe('Dollars per million input tokens'),
  output: z.number().nonnegative().describe('Dollars per million output tokens'),
  cachedInput: z.number().nonnegative().optional().describe('Dollars per million cached input tokens'),
});

const mcpCommon = {
  enabled: z.boolean().default(true).describe('Connect to this server (false keeps it configured but off)'),
  timeoutSeconds: z.number().int().min(1).default(60).describe('Time limit of one tool call'),
  startupTimeoutSeconds: z.number().int().min(1).default(30).describe('Time limit to start and initialise the server'),
  trustedTools: z.array(z.string().min(1)).default([]).describe('Tools with side effects that run without asking each time'),
  disabledTools: z.array(z.string().min(1)).default([]).describe('Tools never offered to the agent'),
  containers: z.boolean().default(false)
    .describe("Offer its read-only and trusted tools to vm-agent containers too: it runs on the host, reached through each container's gateway"),
};

/** An MCP server: a command cadre starts (stdio) or a streamable-HTTP URL. */
export const mcpServerSchema = z.union([
  z.strictObject({
    command: z.string().min(1).describe('The program to start'),
    args: z.array(z.string()).default([]).describe('Its arguments'),
    env: z.record(z.string(), z.string()).default({}).describe('Extra environment variables (secret: masked and redacted)'),
    cwd: z.string().min(1).optional().describe('Its working folder, relative to the project (default: the project)'),
    ...mcpCommon,
  }),
  z.strictObject({
    url: z.url().describe('The streamable-HTTP endpoint'),
    headers: z.record(z.string(), z.string()).default({}).describe('Extra HTTP headers (secret: masked and redacted)'),
    ...mcpCommon,
  }),
]);

export const configSchema = z.strictObject({
  model: z
    .strictObject({
      provider: z
        .enum(['offline', 'anthropic', 'openai', 'openai-compatible'])
        .default('offline')
        .describe('Model provider; offline uses the embedded deterministic engine'),
      name: z.string().min(1).optional().describe('Model name, as the provider spells it'),
      baseUrl: z.url().optional().describe('Provider API base URL (required for openai-compatible servers)'),
      apiKey: z.string().min(1).optional().describe('Provider API key (secret)'),
      contextWindow: z.number().int().min(1_000).optional()
        .describe("The model's context window in tokens, when the provider's model list does not say (default: known models, else 32000)"),
      stallTimeoutSeconds: z.number().int().min(1).default(60).describe('A model stream silent this long fails with "the model stopped responding"'),
      prices: z.record(z.string().min(1), price).default({})
        .describe('Prices per model name (a trailing * matches a prefix), in dollars per million tokens: { input, output, cachedInput }'),
    })
    .prefault({})
    .describe('The model behind the agents'),
  permissions: z
    .strictObject({
      read: accessRule('read').prefault({}),
      write: accessRule('write').prefault({}),
    })
    .prefault({})
    .describe("universal-agent's file permissions on the host project"),
  vm: z
    .strictObject({
      // The container settings (memory, cpu, timeout, env, network, services): their schema and defaults are the container layer's.
      ...vmSettingsConfigShape,
      tokenBudget: z.number().int().min(1).default(50_000).describe('Model tokens per vm-agent session'),
      image: z.string().min(1).default('cadre-sandbox:latest').describe('Docker image of the sandbox'),
      warmPool: z.number().int().min(0).max(8).default(0).describe('Sandbox containers kept started ahead of /vm-create (taken when the settings fit; removed at exit)'),
      engine: z.string().min(1).optional().describe('The Docker engine for sandboxes: a docker context name, or unix://, tcp:// (TLS from DOCKER_TLS_VERIFY/DOCKER_CERT_PATH) or ssh://user@host; DOCKER_HOST and DOCKER_CONTEXT win over it'),
    })
    .prefault({})
    .describe('vm-agent containers'),
  exec: z
    .strictObject({
      timeoutSeconds: z.number().int().min(1).default(600).describe('Time limit of /exec commands in seconds'),
    })
    .prefault({})
    .describe('The /exec command'),
  git: z
    .strictObject({
      authorName: z.string().min(1).optional().describe('Author name of commits cadre makes'),
      authorEmail: z.email().optional().describe('Author email of commits cadre makes'),
    })
    .prefault({})
    .describe('Git identity'),
  github: z
    .strictObject({
      token: z.string().min(1).optional().describe('GitHub token for pull requests (secret)'),
      baseUrl: z.url().default('https://api.github.com').describe('GitHub API base URL'),
    })
    .prefault({})
    .describe('Pull requests'),
  capabilities: z.array(capability).default([]).describe('Extra capabilities added to the agents'),
  mcp: z
    .strictObject({
      servers: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a kebab-case name like github'), mcpServerSchema).default({})
        .describe('MCP servers whose tools universal-agent (and, with containers: true, vm-agent) may use: { command, args, env } or { url, headers }'),
    })
    .prefault({})
    .describe('Integrations through the Model Context Protocol'),
  audit: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Write the hash-chained audit trail'),
    })
    .prefault({})
    .describe('The audit trail'),
});

export type Config = z.infer<typeof configSchema>;

/** Key paths whose values are secrets: masked when shown, registered for redaction. */
export const secretKeyPaths: readonly string[] = ['model.apiKey', 'github.token'];

/** Why a setting in a project's .cadre/config.json waits until the person trusts the folder. */
export type TrustReason = 'runs a program' | 'loads code' | 'redirects a credential' | 'widens permissions' | 'widens the container allowlist' | 'changes prices or limits' | 'turns off a safeguard';

/**
 * What a project's own config may set before the folder is trusted: `always`; only once `trusted`; or a `tightening`
 * value only (one that makes cadre stricter, e.g. audit on), the other values waiting for trust.
 */
export type ProjectKeyRule =
  | { project: 'always' }
  | { project: 'trusted'; reason: TrustReason }
  | { project: 'tightening'; reason: TrustReason; tightens: (value: unknown) => boolean };

/** One rule per key of the config (records and lists as a whole): a key added to the schema does not compile until it is classified. */
export type ProjectKeyRules<T> = {
  readonly [K in keyof T]-?: NonNullable<T[K]> extends readonly unknown[] ? ProjectKeyRule
    : NonNullable<T[K]> extends Record<string, unknown> ? (string extends keyof NonNullable<T[K]> ? ProjectKeyRule : ProjectKeyRules<NonNullable<T[K]>>)
    : ProjectKeyRule;
};

const always: ProjectKeyRule = { project: 'always' };
const trusted = (reason: TrustReason): ProjectKeyRule => ({ project: 'trusted', reason });
const onlyTrue = (reason: TrustReason): ProjectKeyRule => ({ project: 'tightening', reason, tightens: (value) => value === true });

/** The classification of every key for a project's config in a folder not trusted yet (user config, environment and flags are the person's own). */
export const projectKeyRules: ProjectKeyRules<Config> = {
  model: {
    provider: trusted('redirects a credential'),
    name: always,
    baseUrl: trusted('redirects a credential'),
    apiKey: trusted('redirects a credential'),
    contextWindow: trusted('changes prices or limits'),
    stallTimeoutSeconds: always,
    prices: trusted('changes prices or limits'),
  },
  permissions: {
    read: { allow: trusted('widens permissions'), deny: always },
    write: { allow: trusted('widens permissions'), deny: always },
  },
  vm: {
    memory: trusted('changes prices or limits'),
    cpu: trusted('changes prices or limits'),
    pids: trusted('changes prices or limits'),
    disk: trusted('changes prices or limits'),
    timeoutMinutes: trusted('changes prices or limits'),
    env: trusted('loads code'),
    networkIsolation: onlyTrue('widens the container allowlist'),
    allowedDomains: trusted('widens the container allowlist'),
    services: trusted('runs a program'),
    tokenBudget: trusted('changes prices or limits'),
    image: trusted('runs a program'),
    warmPool: trusted('changes prices or limits'),
    engine: trusted('redirects a credential'),
  },
  exec: { timeoutSeconds: always },
  git: { authorName: always, authorEmail: always },
  github: { token: trusted('redirects a credential'), baseUrl: trusted('redirects a credential') },
  capabilities: always,
  mcp: { servers: trusted('runs a program') },
  audit: { enabled: onlyTrue('turns off a safeguard') },
};
