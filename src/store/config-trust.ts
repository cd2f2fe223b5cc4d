// The project layer in a folder not trusted: which of its keys wait for trust, what is left, and the fingerprint of the rest.
import { createHash } from 'node:crypto';
import { getPath, isPlainObject, leafPaths, setPath, type Json } from './config-layers.js';
import { projectKeyRules, type ProjectKeyRule, type TrustReason } from './config-schema.js';

/** A project setting that waits for trust: its key (an MCP server, an env variable… by name) and why. */
export interface TrustedKey {
  key: string;
  reason: TrustReason;
}

const isRule = (value: unknown): value is ProjectKeyRule => isPlainObject(value) && typeof value.project === 'string';

/** The rule of a leaf key path and the key to name it by (the rule's key, plus the entry's name for records such as mcp.servers). */
function ruleOf(path: string): { rule: ProjectKeyRule; key: string } | undefined {
  const parts = path.split('.');
  let node: unknown = projectKeyRules;
  for (let depth = 0; depth < parts.length; depth += 1) {
    node = isPlainObject(node) ? node[parts[depth] as string] : undefined;
    if (node === undefined) return undefined;
    if (isRule(node)) return { rule: node, key: parts.slice(0, Math.min(depth + 2, parts.length)).join('.') };
  }
  return undefined;
}

function waitingReason(rule: ProjectKeyRule, value: unknown): TrustReason | undefined {
  if (rule.project === 'always') return undefined;
  if (rule.project === 'tightening' && rule.tightens(value)) return undefined;
  return rule.reason;
}

/**
 * Splits a project's config: `kept` holds what applies before the folder is trusted (keys the schema does not know
 * stay, so validation still names them); `waiting` names each key that needs trust, once, in the file's order.
 */
export function splitProjectLayer(values: Json): { kept: Json; waiting: TrustedKey[] } {
  const kept: Json = {};
  const waiting = new Map<string, TrustReason>();
  for (const path of leafPaths(values)) {
    const value = getPath(values, path);
    const found = ruleOf(path);
    const reason = found === undefined ? undefined : waitingReason(found.rule, value);
    if (found === undefined || reason === undefined) setPath(kept, path, value);
    else if (!waiting.has(found.key)) waiting.set(found.key, reason);
  }
  return { kept, waiting: [...waiting].map(([key, reason]) => ({ key, reason })) };
}

/**
 * A fingerprint of the values a project's config sets for keys that need trust: trusting a folder trusts these values,
 * and any change (a new MCP command, another base URL) asks again. Key order in the file does not matter.
 */
export function trustFingerprint(values: Json): string {
  const entries = leafPaths(values)
    .filter((path) => {
      const rule = ruleOf(path)?.rule;
      return rule !== undefined && rule.project !== 'always';
    })
    .sort()
    .map((path) => [path, getPath(values, path)]);
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

/** `mcp.servers.files (runs a program)`; a key with characters a terminal could act on is shown quoted and escaped. */
export function describeTrustedKey({ key, reason }: TrustedKey): string {
  return `${/^[\w.@:*/-]+$/.test(key) ? key : JSON.stringify(key)} (${reason})`;
}

/** `mcp.servers.files (runs a program), model.baseUrl (redirects a credential)`. */
export function describeTrustedKeys(keys: readonly TrustedKey[]): string {
  return keys.map(describeTrustedKey).join(', ');
}
