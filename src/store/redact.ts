// Secret redaction: known key and token formats, and exact secret values registered at run time.

const registered = new Set<string>();

/** Secrets shorter than this are not registered: redacting them would mangle ordinary text. */
const minimumSecretLength = 6;

const patterns: readonly { kind: string; pattern: RegExp; keep?: string }[] = [
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g },
  { kind: 'bearer-token', pattern: /\b(Bearer\s+)(?!\[redacted:)[A-Za-z0-9._~+/=-]{8,}/gi, keep: '$1' },
  {
    kind: 'password',
    pattern: /\b((?:password|passwd|pwd)["']?\s*[=:]\s*)(?!\[redacted:)("[^"\n]*"|'[^'\n]*'|[^\s&;,"']+)/gi,
    keep: '$1',
  },
  {
    kind: 'token',
    pattern: /\b((?:token|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)["']?\s*[=:]\s*)(?!\[redacted:)("[^"\n]*"|'[^'\n]*'|[^\s&;,"']+)/gi,
    keep: '$1',
  },
];

/** Object keys whose string values are secrets whatever they look like. */
const secretKeyName = /^(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|authorization|client[_-]?secret|private[_-]?key)$/i;

/** Registers an exact value (an API key from config, a session token) to be redacted everywhere from now on. */
export function registerSecret(value: string): void {
  if (value.length >= minimumSecretLength) registered.add(value);
}

/** Replaces every secret in `text` with `[redacted:<kind>]`. */
export function redactText(text: string): string {
  let out = text;
  for (const secret of [...registered].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted:secret]');
  }
  for (const { kind, pattern, keep } of patterns) {
    out = out.replace(pattern, `${keep ?? ''}[redacted:${kind}]`);
  }
  return out;
}

/** Redacts every string in a JSON-like value; values under secret-looking keys are redacted whole. */
export function redactValue<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(walk);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        typeof child === 'string' && secretKeyName.test(key) && child !== '' ? '[redacted:secret]' : walk(child),
      ]),
    );
  }
  return value;
}
