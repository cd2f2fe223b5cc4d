// `cadre config`: the effective config as rows of key, value (secrets masked) and where the value came from.
import { getPath, isPlainObject, objectShape, type Json } from './config-layers.js';
import { configSchema, secretKeyPaths } from './config-schema.js';
import type { ConfigSource, LoadedConfig } from './config.js';

export interface ConfigRow {
  key: string;
  /** The value as shown to people: JSON for lists, masked for secrets, "(not set)" when absent. */
  value: string;
  /** "default", "user <file>", "project <file>", "env <VAR>", "flag …", or "" when not set. */
  source: string;
  description: string;
}

const secretEnvName = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

/** Every key of the schema (set or not) plus every entry of records such as vm.env, in schema order. */
export function describeConfig(loaded: LoadedConfig): { rows: ConfigRow[] } {
  const rows: ConfigRow[] = [];
  const visit = (shape: Record<string, { description?: string | undefined }>, prefix: string): void => {
    for (const [name, schema] of Object.entries(shape)) {
      const key = prefix === '' ? name : `${prefix}.${name}`;
      const inner = objectShape(schema as never);
      if (inner !== undefined) {
        visit(inner, key);
        continue;
      }
      const value = getPath(loaded.config, key);
      const description = schema.description ?? '';
      if (isPlainObject(value) && Object.keys(value).length > 0) {
        for (const [entry, entryValue] of Object.entries(value as Json)) {
          const entryKey = `${key}.${entry}`;
          const masked = key === 'mcp.servers' ? JSON.stringify(maskMcpServer(entryValue))
            : secretEnvName.test(entry) ? mask(String(entryValue)) : JSON.stringify(entryValue);
          rows.push({ key: entryKey, value: masked, source: sourceText(loaded.sources.get(entryKey)), description });
        }
        continue;
      }
      rows.push({ key, value: showValue(key, value), source: sourceText(loaded.sources.get(key)), description });
    }
  };
  visit(objectShape(configSchema) ?? {}, '');
  return { rows };
}

/**
 * The model rows as the active model has them: the provider a base URL or a key in the environment implies (and the
 * model CADRE_MODEL's provider/name or -m names) outrank config's default `offline`, so the rows agree with
 * "Active model" below them.
 */
export function withActiveProvider(description: { rows: ConfigRow[] }, active: { provider: string; model?: string; source: string }): { rows: ConfigRow[] } {
  const rows = description.rows.map((row) => {
    if (row.key === 'model.provider' && row.value !== active.provider) return { ...row, value: active.provider, source: `active: ${active.source}` };
    if (row.key === 'model.name' && active.model !== undefined && row.value !== active.model) return { ...row, value: active.model, source: `active: ${active.source}` };
    return row;
  });
  return { rows };
}

/** The text `cadre config` prints: one aligned line per key. */
export function renderConfigText(description: { rows: ConfigRow[] }): string {
  const keyWidth = Math.max(...description.rows.map((row) => row.key.length));
  const valueWidth = Math.min(48, Math.max(...description.rows.map((row) => row.value.length)));
  return description.rows
    .map((row) => `${row.key.padEnd(keyWidth)}  ${row.value.padEnd(valueWidth)}  ${row.source}`.trimEnd())
    .join('\n');
}

/** Shows a secret as its first 4 characters and an ellipsis, or only dots when it is too short to reveal any. */
export function mask(secret: string): string {
  return secret.length >= 12 ? `${secret.slice(0, 4)}…` : '••••';
}

/** An MCP server as `cadre config` shows it: its environment and header values masked, whatever their names. */
function maskMcpServer(server: unknown): unknown {
  if (!isPlainObject(server)) return server;
  const masked = (values: unknown) => (isPlainObject(values) ? Object.fromEntries(Object.entries(values).map(([name, value]) => [name, mask(String(value))])) : values);
  return { ...server, ...('env' in server ? { env: masked(server.env) } : {}), ...('headers' in server ? { headers: masked(server.headers) } : {}) };
}

function showValue(key: string, value: unknown): string {
  if (value === undefined) return '(not set)';
  if (secretKeyPaths.includes(key)) return mask(String(value));
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function sourceText(source: ConfigSource | undefined): string {
  if (source === undefined) return '';
  if (source.layer === 'default') return 'default';
  return `${source.layer} ${source.origin}`;
}
