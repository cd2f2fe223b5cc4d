// Loads the effective config: defaults < user config < project .cadre/config.json < environment < flags.
import type { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { readEnvLayer } from './config-env.js';
import { getPath, isPlainObject, leafPaths, mergeLayer, objectShape, readJsonLayer, schemaAt, setPath, type Json } from './config-layers.js';
import { configSchema, secretKeyPaths, type Config } from './config-schema.js';
import { splitProjectLayer, trustFingerprint, type TrustedKey } from './config-trust.js';
import { resolvePaths } from './paths.js';
import { registerSecret } from './redact.js';

export type ConfigLayer = 'default' | 'user' | 'project' | 'env' | 'flag';

export interface ConfigSource {
  layer: ConfigLayer;
  /** The file path, the environment variable, or "command line". */
  origin: string;
}

export interface LoadedConfig {
  config: Config;
  /** For every key path that has a value: the layer and origin it came from. */
  sources: Map<string, ConfigSource>;
  /** The project's settings left out because the folder is not trusted (empty when it is, or when it sets none). */
  ignored: TrustedKey[];
}

type Env = Record<string, string | undefined>;

const unionKeys = ['permissions.read.deny', 'permissions.write.deny'] as const;

/**
 * Loads and validates every layer. `flags` is a partial config in the same shape as the
 * files (e.g. `{ model: { name: 'x' } }`). The project's settings that need trust
 * (projectKeyRules) apply only when their trustFingerprint is `trustedProject` (the values the
 * person trusted, read once: a file changed since is not trusted); otherwise they are left out
 * and listed in `ignored`. Secret values found are registered for redaction. Throws
 * CadreError `config.invalid` (exit code 2) naming the file or
 * variable, the key path and what is allowed.
 */
export async function loadConfig({ cwd, env = process.env, flags = {}, trustedProject }: { cwd: string; env?: Env; flags?: Json; trustedProject?: string }): Promise<LoadedConfig> {
  const paths = resolvePaths({ cwd, env });
  const layers: { layer: ConfigLayer; origin: string; values: Json; originOf?: (key: string) => string }[] = [];
  let ignored: TrustedKey[] = [];

  for (const [layer, file] of [['user', paths.userConfigFile], ['project', paths.projectConfigFile]] as const) {
    let values = await readJsonLayer(file);
    if (values === undefined) continue;
    if (layer === 'project' && trustFingerprint(values) !== trustedProject) {
      // Checked whole first, so a mistake in a key left out is still reported with its file and key.
      validateLayer(values, () => file);
      ({ kept: values, waiting: ignored } = splitProjectLayer(values));
    }
    layers.push({ layer, origin: file, values });
  }
  const provider = String(
    getPath(flags, 'model.provider') ?? env.CADRE_PROVIDER ?? lastValue(layers, 'model.provider') ?? 'offline',
  );
  const envEntries = readEnvLayer(env, provider);
  if (envEntries.length > 0) {
    const values: Json = {};
    for (const entry of envEntries) setPath(values, entry.key, entry.value);
    const variableOf = (key: string) => envEntries.find((entry) => key === entry.key || key.startsWith(`${entry.key}.`))?.variable ?? 'environment';
    layers.push({ layer: 'env', origin: 'environment', values, originOf: variableOf });
  }
  layers.push({ layer: 'flag', origin: 'command line', values: flags });

  const sources = new Map<string, ConfigSource>();
  // The defaults are the bottom layer, so deny lists from the files add to the built-in ones.
  let merged = configSchema.parse({}) as Json;
  for (const { layer, origin, values, originOf } of layers) {
    validateLayer(values, (key) => (originOf ? `environment variable ${originOf(key)}` : origin));
    merged = mergeLayer(merged, values, unionKeys);
    for (const key of leafPaths(values)) sources.set(key, { layer, origin: originOf?.(key) ?? origin });
  }
  const config = configSchema.parse(merged);
  for (const key of leafPaths(config as Json)) {
    if (!sources.has(key)) sources.set(key, { layer: 'default', origin: 'built-in default' });
  }
  if (config.model.provider === 'openai-compatible' && config.model.baseUrl === undefined) {
    const from = sources.get('model.provider');
    throw new CadreError('config.invalid', `Invalid config: model.baseUrl is required when model.provider is openai-compatible (set by ${from?.origin ?? 'a config layer'}).`, {
      remedy: 'Set model.baseUrl (or CADRE_BASE_URL) to the server, e.g. http://127.0.0.1:8080/v1.',
      exitCode: exitCodes.usage,
    });
  }
  for (const key of secretKeyPaths) {
    const value = getPath(config, key);
    if (typeof value === 'string') registerSecret(value);
  }
  for (const value of mcpSecretValues(config)) registerSecret(value);
  return { config, sources, ignored };
}

/** MCP servers' environment and header values (a header's token also without its scheme): all treated as secrets. */
export function mcpSecretValues(config: Config): string[] {
  return Object.values(config.mcp.servers).flatMap((server) => Object.values('env' in server ? server.env : server.headers))
    .flatMap((value) => [value, value.replace(/^(?:Bearer|Basic|token)\s+/i, '')]);
}

function lastValue(layers: { values: Json }[], key: string): unknown {
  return layers.map((layer) => getPath(layer.values, key)).filter((value) => value !== undefined).at(-1);
}

function validateLayer(values: Json, originOf: (key: string) => string): void {
  const parsed = configSchema.safeParse(values);
  if (parsed.success) return;
  const problems = parsed.error.issues.flatMap((issue) => explainIssue(issue, values));
  const first = problems[0];
  if (first === undefined) return;
  const lines = problems.map((problem) => `${originOf(problem.key)}: ${problem.key}: ${problem.text}`);
  throw new CadreError('config.invalid', `Invalid config in ${originOf(first.key)} at ${first.key}: ${first.text}${lines.length > 1 ? `\n${lines.join('\n')}` : ''}`, {
    remedy: `Fix ${first.key} in ${originOf(first.key)}; \`cadre config\` lists every key and its current value.`,
    exitCode: exitCodes.usage,
  });
}

function explainIssue(issue: z.core.$ZodIssue, values: Json): { key: string; text: string }[] {
  const base = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const allowed = Object.keys(objectShape(schemaAt(configSchema, issue.path)) ?? {});
    return issue.keys.map((key) => ({
      key: [...base, key].join('.'),
      text: `unknown key; allowed here: ${allowed.join(', ')}`,
    }));
  }
  const key = base.join('.') || '(top level)';
  const got = getPath(values, base.join('.'));
  const shown = secretKeyPaths.includes(key) || isPlainObject(got) ? '' : ` (got ${JSON.stringify(got)})`;
  return [{ key, text: `${issue.message}${shown}` }];
}
