// Secret redaction: known key and token formats, and exact secret values registered at run time.

const registered = new Set<string>();
/** The registered values, longest first (a value inside a longer one is replaced after it); rebuilt when one is added. */
let registeredLongestFirst: readonly string[] = [];

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

/**
 * The patterns joined by their flags (one expression per set of flags, so each matches exactly where one of its patterns
 * does): text none of them matches is left as it is by every pattern, and is not run through them one by one.
 */
const anyPattern: readonly RegExp[] = [...new Set(patterns.map(({ pattern }) => pattern.flags.replace('g', '')))].map(
  (flags) => new RegExp(patterns.filter(({ pattern }) => pattern.flags.replace('g', '') === flags).map(({ pattern }) => `(?:${pattern.source})`).join('|'), flags),
);

/** Object keys whose string values are secrets whatever they look like. */
const secretKeyName = /^(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|authorization|client[_-]?secret|private[_-]?key)$/i;

/** Registers an exact value (an API key from config, a session token) to be redacted everywhere from now on. */
export function registerSecret(value: string): void {
  if (value.length < minimumSecretLength || registered.has(value)) return;
  registered.add(value);
  registeredLongestFirst = [...registered].sort((a, b) => b.length - a.length);
}

/** Replaces every secret in `text` with `[redacted:<kind>]`. */
export function redactText(text: string): string {
  let out = text;
  for (const secret of registeredLongestFirst) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted:secret]');
  }
  if (!anyPattern.some((expression) => expression.test(out))) return out;
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

/** What a value needing JSON's own rules (toJSON, a Date, a Map, a class instance, a bigint, a `__proto__` key) gives the walk below. */
const needsJsonRules = Symbol('needs JSON rules');

/**
 * The redacted JSON value of `value`: exactly what `JSON.parse(JSON.stringify(redactValue(value)))` gives (the form an audit
 * record stores and hashes), in one walk over plain data; anything else takes that road itself.
 */
export function redactedJsonValue(value: unknown): unknown {
  const plain = plainJson(value);
  return plain === needsJsonRules ? (JSON.parse(JSON.stringify(redactValue(value))) as unknown) : plain;
}

/** JSON leaves out these values in an object and writes them as null in an array. */
function leftOutByJson(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function plainJson(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return redactText(value);
    case 'number':
      // NaN and the infinities become null; -0 becomes 0.
      return Number.isFinite(value) ? value + 0 : null;
    case 'boolean':
      return value;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return Object.getPrototypeOf(value) === Array.prototype ? plainArray(value) : needsJsonRules;
      return isPlainObject(value) ? plainObject(value as Record<string, unknown>) : needsJsonRules;
    default:
      return needsJsonRules;
  }
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function plainArray(value: readonly unknown[]): unknown {
  const out: unknown[] = [];
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    const clean = leftOutByJson(item) ? null : plainJson(item);
    if (clean === needsJsonRules) return needsJsonRules;
    out.push(clean);
  }
  return out;
}

function plainObject(value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // JSON calls an own toJSON; assigning `__proto__` would set the prototype where JSON.parse makes a property.
    if (key === 'toJSON' || key === '__proto__') return needsJsonRules;
    const child = value[key];
    if (leftOutByJson(child)) continue;
    const clean = typeof child === 'string' && child !== '' && secretKeyName.test(key) ? '[redacted:secret]' : plainJson(child);
    if (clean === needsJsonRules) return needsJsonRules;
    out[key] = clean;
  }
  return out;
}
