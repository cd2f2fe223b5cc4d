// Hardcoded secrets: known token formats, high-entropy literals in secret-named places, literal keys handed to session/JWT/crypto APIs.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { isTestPath, nonRuntimeKind } from '../code-paths.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'security', category: 'secrets', title, help });

export const secretRules = {
  token: rule('security/known-token', 'A credential in a known token format', 'Revoke the credential now, then load it from the environment or a secret manager.'),
  named: rule('security/hardcoded-secret', 'A literal secret in the code', 'Read it from the environment (process.env.NAME) and fail at start-up when it is missing.'),
  apiKey: rule('security/literal-key-to-api', 'A literal secret handed to a session, JWT or crypto API', 'Pass a secret read from the environment or a key store; never a literal or a literal fallback.'),
};

const tokenFormats: { name: string; pattern: RegExp }[] = [
  { name: 'AWS access key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{60,})\b/g },
  { name: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: 'Stripe secret key', pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}\b/g },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'OpenAI key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}\b|\bsk-proj-[A-Za-z0-9_-]{40,}\b/g },
  { name: 'Anthropic key', pattern: /\bsk-ant-[A-Za-z0-9_-]{30,}\b/g },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'SendGrid key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { name: 'private key', pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----/g },
  { name: 'private JSON Web Key', pattern: /"d"\s*:\s*"[A-Za-z0-9_-]{40,}"(?=[\s\S]{0,4000}"kty"|[\s\S]{0,4000}"[pq]"\s*:)|"kty"\s*:\s*"(?:RSA|EC|OKP)"(?=[^}]{0,4000}"d"\s*:\s*"[A-Za-z0-9_-]{40,}")/g },
  { name: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}\b/g },
  { name: 'credentials in a connection URL', pattern: /\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqps?):\/\/[^:@\s/'"`]+:(?!\$\{)[^@\s'"`]{3,}@(?!localhost|127\.0\.0\.1|example)[^\s'"`]+/g },
];

const secretName = /(?:secret|passw(?:or)?d|pwd|token|api[_-]?key|apikey|private[_-]?key|client[_-]?secret|access[_-]?key|auth[_-]?key|credential|signing[_-]?key|crypto[_-]?key|encryption[_-]?key|secret[_-]?key|hmac[_-]?key|master[_-]?key)$/i;
/** Names of .env variables that hold secrets: the above, and the usual `_KEY` suffix (not public keys or key locations). */
const envSecretName = /(?:secret|passw(?:or)?d|pwd|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key|credential|_key|_auth)$/i;
const notSecretName = /(?:url|uri|path|file|name|header|type|field|label|length|min|max|regex|pattern|placeholder|endpoint|prefix|count|id|key[_-]?name)$/i;
/** Values that are evidently not a real credential. A literal handed to a session or JWT API is used as is, whatever it looks like, so this filter is not applied there. */
const placeholder = /^(?:|x+|\*+|\.+|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%[A-Z_]+%|changeme|change[-_ ]?me|todo|dummy|example|placeholder|redacted|none|null|undefined|true|false|0?123456789|1234567890|0{6,}|1{6,})$/i;

/** Calls and the argument positions that must hold a secret. */
const secretArguments: { callee: RegExp; index: number }[] = [
  { callee: /(?:^|\.)(?:jwt|jsonwebtoken|jose)\.(?:sign|verify)$|^(?:sign|verify)$/, index: 1 },
  { callee: /(?:^|\.)createHmac$/, index: 1 },
  { callee: /(?:^|\.)createCipheriv$|(?:^|\.)createDecipheriv$/, index: 1 },
  { callee: /^cookieParser$|^cookie-parser$/, index: 0 },
  { callee: /(?:^|\.)pbkdf2(?:Sync)?$|(?:^|\.)scrypt(?:Sync)?$/, index: 0 },
];
const secretOptions = /^(?:session|expressSession|cookieSession|expressJwt|jwt|passportJwt|fastifySession|fastifyCookie|fastifyJwt|koaSession|JwtStrategy|Strategy|register)$/;

export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const probability = count / text.length;
    entropy -= probability * Math.log2(probability);
  }
  return entropy;
}

export function checkSecrets(file: SourceFile): Finding[] {
  const findings: Finding[] = checkEnvFile(file);
  const isTest = isTestPath(file.path);
  // Sample tokens and connection strings are the norm in tests, docs, examples, env templates and comments; keys and cloud credentials are not.
  const samplesExpected = isTest || nonRuntimeKind(file.path) !== null || /(?:^|\/)\.env\.[\w.-]+$/.test(file.path) && !isEnvFile(file.path);
  const offset = file.parsed?.offset ?? 0;
  const comments = file.parsed?.comments.map((comment) => [comment.start + offset, comment.end + offset] as const) ?? [];
  const inComment = (index: number): boolean => comments.some(([start, end]) => index >= start && index < end);
  if (!/\.(?:md|lock)$|package-lock\.json$/.test(file.path)) {
    for (const format of tokenFormats) {
      for (const match of file.text.matchAll(format.pattern)) {
        if ((format.name === 'JSON Web Token' || format.name === 'credentials in a connection URL') && (samplesExpected || inComment(match.index ?? 0))) continue;
        findings.push(findingAt(file, match.index ?? 0, secretRules.token, { severity: 'Critical', message: `Hardcoded ${format.name}.`, fix: secretRules.token.help }));
      }
    }
  }
  if (!file.parsed || isTest) return findings;
  let constants: Map<string, { text: string; node: AstNode }> | null = null;
  const program = file.parsed.program;
  // A literal and the node to report it at (the constant's declaration when the value is a named constant).
  const literalOf = (node: AstNode | null): { text: string; node: AstNode } | null => {
    if (!node) return null;
    if (node.type === 'Identifier') {
      constants ??= literalConstants(program);
      return constants.get(node.name as string) ?? null;
    }
    const text = staticString(node) ?? (node.type === 'LogicalExpression' && (node.operator === '??' || node.operator === '||') ? staticString(child(node, 'right')) : null);
    return text === null ? null : { text, node };
  };
  const reported = new Set<number>();
  const report = (node: AstNode, rule: RuleMeta, message: string): void => {
    if (reported.has(node.start)) return;
    reported.add(node.start);
    findings.push(findingAt(file, node, rule, { severity: 'High', message, fix: rule.help }));
  };
  walk(program, (node) => {
    if (node.type === 'CallExpression' || node.type === 'NewExpression') {
      const callee = calleePath(node) ?? '';
      const args = children(node, 'arguments');
      for (const { callee: pattern, index } of secretArguments) {
        const value = literalOf(args[index] ?? null);
        if (pattern.test(callee) && value !== null && isLiteralKey(value.text)) report(value.node, secretRules.apiKey, `${callee}() is given a literal secret.`);
      }
      if (secretOptions.test(callee.split('.').pop() ?? '')) {
        for (const options of args.filter((argument) => argument.type === 'ObjectExpression')) {
          for (const property of children(options, 'properties')) {
            const key = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
            const value = literalOf(child(property, 'value'));
            if (key && /^(?:secret|secretOrKey|key|keys)$/.test(key) && value !== null && isLiteralKey(value.text)) report(value.node, secretRules.apiKey, `${callee}() is configured with a literal ${key}.`);
          }
        }
      }
      return;
    }
    const [name, value] = namedValue(node);
    if (!name || !value || !secretName.test(name) || notSecretName.test(name)) return;
    const text = staticString(value) ?? (value.type === 'LogicalExpression' ? staticString(child(value, 'right')) : null);
    if (text !== null && isRealSecret(text, 8) && !/\s/.test(text) && (shannonEntropy(text) >= 3 || text.length >= 16) && !(value.type !== 'LogicalExpression' && namesItself(name, text)) && !usedAsKey(node, program)) {
      report(value, secretRules.named, `${name} is set to a literal secret${value.type === 'LogicalExpression' ? ' (as a fallback when the environment has none)' : ''}.`);
    }
  });
  return findings;
}

/** `RESET_PASSWORD = 'resetPassword'`, `password: 'incorrectPassword'`: the value is a word of the name, a label rather than a secret. */
function namesItself(name: string, value: string): boolean {
  const words = (text: string): string[] => text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length >= 4);
  const nameWords = new Set(words(name));
  return /^[A-Za-z_-]+$/.test(value) && words(value).some((word) => nameWords.has(word));
}

/** `const ACCESS_TOKEN = 'x'` then `getCookie(ACCESS_TOKEN)`: the constant names a cookie or storage key. */
function usedAsKey(declaration: AstNode, program: AstNode): boolean {
  if (declaration.type !== 'VariableDeclarator') return false;
  const name = identifierName(child(declaration, 'id'));
  if (!name) return false;
  let keyUse = false;
  walk(program, (node) => {
    if (keyUse) return false;
    if (node.type !== 'CallExpression') return undefined;
    const first = children(node, 'arguments')[0];
    if (first?.type === 'Identifier' && first.name === name && /(?:^|\.)(?:get|set|remove|delete|has|getItem|setItem|removeItem|clearCookie|cookie)(?:Cookie|Item)?$/i.test(calleePath(node) ?? '')) keyUse = true;
    return undefined;
  });
  return keyUse;
}

/** A literal given to a session, JWT or crypto API is the key in use: anything but an empty string or a template placeholder. */
function isLiteralKey(text: string): boolean {
  return text.trim().length > 0 && !/^\$\{[^}]*\}$|^process\.env/.test(text.trim());
}

/** `.env` files (not .env.example and the like): variables named like secrets with a real value. */
export function checkEnvFile(file: SourceFile): Finding[] {
  if (!isEnvFile(file.path)) return [];
  const findings: Finding[] = [];
  for (const match of file.text.matchAll(/^[ \t]*(?:export[ \t]+)?([A-Za-z_][\w.-]*)[ \t]*=[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^#\n]*))/gm)) {
    const name = match[1] ?? '';
    const value = (match[2] ?? match[3] ?? match[4] ?? '').trim();
    if (!envSecretName.test(name) || /public[_-]?key|_(?:location|path|file|url|uri|host|port|user(?:name)?|id)$/i.test(name)) continue;
    if (value.length < 3 || placeholder.test(value) || /^(?:\$\{|\$[A-Z_])/.test(value) || /^(?:https?:\/\/[^:@\s]*|\.{0,2}\/[\w./-]*)$/.test(value)) continue;
    findings.push(findingAt(file, match.index ?? 0, secretRules.named, { severity: 'High', message: `${name} is committed in ${file.path.split('/').pop()}: whoever can read the repository has it.`, fix: 'Remove the file from the repository (keep a .env.example with placeholders), rotate the value, and set it in the deployment environment.' }));
  }
  return findings;
}

/** `.env`, `.env.production`…; not the templates people commit on purpose (.env.example, .sample, .template, .dist, .defaults). */
export function isEnvFile(path: string): boolean {
  return /(?:^|\/)\.env(?:\.[\w-]+)*$/.test(path) && !/\.(?:example|sample|template|dist|defaults?|schema|tpl)$/i.test(path);
}

function isRealSecret(text: string, minimumLength: number): boolean {
  return text.length >= minimumLength && !placeholder.test(text.trim()) && !/^process\.env/.test(text) && !/\s{2,}|^\W+$/.test(text);
}

function namedValue(node: AstNode): [string | null, AstNode | null] {
  if (node.type === 'VariableDeclarator') return [identifierName(child(node, 'id')), child(node, 'init')];
  if (node.type === 'Property' || node.type === 'PropertyDefinition') return [identifierName(child(node, 'key')) ?? staticString(child(node, 'key')), child(node, 'value')];
  if (node.type === 'AssignmentExpression') {
    const path = memberPath(child(node, 'left'));
    return [path ? path.slice(path.lastIndexOf('.') + 1) : null, child(node, 'right')];
  }
  return [null, null];
}

/** `const NAME = 'literal'` and `const NAME = process.env.X ?? 'literal'` anywhere in the file. */
function literalConstants(program: AstNode): Map<string, { text: string; node: AstNode }> {
  const constants = new Map<string, { text: string; node: AstNode }>();
  walk(program, (node) => {
    if (node.type !== 'VariableDeclarator') return;
    const name = identifierName(child(node, 'id'));
    const init = child(node, 'init');
    if (!name || !init) return;
    const literal = staticString(init) ?? (init.type === 'LogicalExpression' ? staticString(child(init, 'right')) : null);
    if (literal !== null) constants.set(name, { text: literal, node: init });
  });
  return constants;
}
