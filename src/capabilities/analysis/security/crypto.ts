// Weak cryptography: fast or broken hashes for passwords, Math.random for secrets, createCipher, ECB and weak ciphers, short keys, disabled TLS checks.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'security', category: 'crypto', title, help });

export const cryptoRules = {
  passwordHash: rule('security/weak-password-hash', 'Passwords hashed with a fast hash', 'Hash passwords with a slow, salted function: bcrypt, scrypt (crypto.scrypt) or argon2.'),
  insecureRandom: rule('security/insecure-random', 'Math.random used for a secret value', 'Use crypto.randomBytes, crypto.randomUUID or crypto.getRandomValues.'),
  deprecatedCipher: rule('security/deprecated-cipher', 'createCipher/createDecipher (no IV, weak key derivation)', 'Use createCipheriv with a random IV and a key from a KDF, e.g. aes-256-gcm.'),
  weakCipher: rule('security/weak-cipher', 'A weak cipher or mode (ECB, DES, RC4)', 'Use an authenticated mode such as aes-256-gcm with a random IV.'),
  shortKey: rule('security/short-key', 'A key shorter than safe', 'Use RSA keys of at least 2048 bits (3072 preferred) and symmetric keys of at least 128 bits.'),
  tls: rule('security/tls-disabled', 'TLS certificate checks turned off', 'Keep certificate verification on; trust a private CA with the ca option instead.'),
  plaintextPassword: rule('security/plaintext-password', 'Passwords stored or compared in plain text', 'Store a slow salted hash (bcrypt, scrypt, argon2) and check logins with its verify function; never query by the password itself.'),
  weakTokenHash: rule('security/weak-token-hash', 'A token derived with a broken hash', 'Make tokens with crypto.randomBytes (or an HMAC-SHA256 with a server secret), not MD5/SHA-1 of guessable input.'),
};

const passwordName = /(?:^|\.)(?:pass(?:word|wd)?|pwd)$/i;
const hashedName = /hash|digest|crypt|salt|bcrypt/i;
/** Hash functions of the md5, sha1 and crypto-js packages, by module. */
const hashPackages = /^(?:md5|blueimp-md5|js-md5|md5-hex|sha1|js-sha1|crypto-js(?:\/(?:md5|sha1))?)$/;

const secretNames = /(?:token|secret|password|passwd|salt|nonce|otp|key|session|csrf|reset|verification|invite|api)/i;

export function checkCrypto(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const findings: Finding[] = [];
  const push = (node: AstNode, meta: RuleMeta, severity: Finding['severity'], message: string): void => {
    findings.push(findingAt(file, node, meta, { severity, message, fix: meta.help }));
  };
  const hashImports = new Map<string, string>();
  for (const statement of children(file.parsed.program, 'body')) collectHashImport(statement, hashImports);
  walk(file.parsed.program, (node, ancestors) => {
    if ((node.type === 'BinaryExpression' || node.type === 'TemplateLiteral') && ancestors.at(-1)?.type !== 'BinaryExpression') {
      const compared = plaintextComparison(node);
      if (compared) push(node, cryptoRules.plaintextPassword, 'High', `The SQL compares the password column with ${compared} itself: passwords are stored in plain text.`);
    }
    if (node.type === 'Property' && passwordName.test(identifierName(child(node, 'key')) ?? '') && isQueryFilter(ancestors)) {
      const value = memberPath(child(node, 'value')) ?? '';
      if (passwordName.test(value) && !hashedName.test(value)) push(node, cryptoRules.plaintextPassword, 'High', `The query looks the user up by ${value} itself: passwords are stored in plain text.`);
    }
    if (node.type === 'Property' && /^(?:cipher|algorithm|algo|encryption)$/i.test(identifierName(child(node, 'key')) ?? '')) {
      const cipher = staticString(child(node, 'value'))?.toLowerCase() ?? '';
      if (/^(?:des(?:-ede3?)?(?:-cbc|-ecb)?|rc4|rc2(?:-\w+)?|bf(?:-\w+)?|blowfish|aes-\d+-ecb)$/.test(cipher)) push(node, cryptoRules.weakCipher, 'High', `The configured cipher ${cipher} is ${cipher.endsWith('-ecb') ? 'in ECB mode, which leaks patterns' : 'broken'}.`);
    }
    if (node.type === 'Property' || node.type === 'AssignmentExpression') {
      const key = node.type === 'Property' ? identifierName(child(node, 'key')) : memberPath(child(node, 'left'));
      const value = child(node, node.type === 'Property' ? 'value' : 'right');
      if (key === 'rejectUnauthorized' && value?.type === 'Literal' && value.value === false) push(node, cryptoRules.tls, 'High', 'rejectUnauthorized: false accepts any certificate.');
      if (key === 'process.env.NODE_TLS_REJECT_UNAUTHORIZED' && staticString(value) === '0') push(node, cryptoRules.tls, 'High', 'NODE_TLS_REJECT_UNAUTHORIZED=0 turns off certificate checks for the whole process.');
      return;
    }
    if (node.type !== 'CallExpression') return;
    const callee = calleePath(node) ?? '';
    const args = children(node, 'arguments');
    const algorithm = staticString(args[0] ?? null)?.toLowerCase() ?? '';
    const packageHash = hashImports.get(callee.split('.')[0] ?? '');
    const packageAlgorithm = packageHash ? (/sha1/i.test(`${packageHash} ${callee}`) ? 'sha1' : 'md5') : null;
    if (packageAlgorithm && (!callee.includes('.') || /\.(?:MD5|SHA1|md5|sha1)$/.test(callee))) {
      const context = hashContext(ancestors, args[0] ?? null);
      if (context?.password) push(node, cryptoRules.passwordHash, 'High', `${packageAlgorithm} (the ${packageHash} package) is used to hash ${context.what}: it is broken and fast.`);
      else if (context) push(node, cryptoRules.weakTokenHash, 'Medium', `${packageAlgorithm} (the ${packageHash} package) makes ${context.what}: it is broken, and its input may be guessed.`);
    } else if (/(?:^|\.)createHash$/.test(callee) && /^(?:md4|md5|sha1|sha-1|sha256|sha512|sha-256|sha-512)$/.test(algorithm)) {
      const context = hashContext(ancestors, null);
      const broken = /md|sha1|sha-1/.test(algorithm);
      if (context?.password) {
        push(node, cryptoRules.passwordHash, broken ? 'High' : 'Medium', `${algorithm} is used to hash ${context.what}: ${broken ? 'it is broken and fast' : 'a fast unsalted hash is brute-forced quickly'}.`);
      } else if (context && broken) {
        push(node, cryptoRules.weakTokenHash, 'Medium', `${algorithm} makes ${context.what}: it is broken, and its input may be guessed.`);
      }
    } else if (/(?:^|\.)(?:createCipher|createDecipher)$/.test(callee)) {
      push(node, cryptoRules.deprecatedCipher, 'High', `${callee}() derives the key with MD5 and uses no IV.`);
    } else if (/(?:^|\.)(?:createCipheriv|createDecipheriv)$/.test(callee) && /-ecb$|^des|^rc4|^rc2|^bf-|^blowfish/.test(algorithm)) {
      push(node, cryptoRules.weakCipher, 'High', `The cipher ${algorithm} is ${algorithm.endsWith('-ecb') ? 'in ECB mode, which leaks patterns' : 'broken'}.`);
    } else if (/(?:^|\.)generateKeyPair(?:Sync)?$/.test(callee) && /^(?:rsa|dsa|rsa-pss)$/.test(algorithm)) {
      const bits = numericOption(args[1] ?? null, 'modulusLength');
      if (bits !== null && bits < 2048) push(node, cryptoRules.shortKey, 'High', `An ${algorithm.toUpperCase()} key of ${bits} bits can be factored.`);
    } else if (callee === 'Math.random') {
      const name = targetName(ancestors);
      if (name && secretNames.test(name) && !/(?:delay|jitter|color|colour|index|position|offset|x|y|width|height|size|duration|timeout|animation|sample|shuffle|key(?:frame|board|s)?$)/i.test(name)) {
        push(node, cryptoRules.insecureRandom, 'High', `Math.random() makes ${name}; its output is predictable.`);
      }
    }
  });
  return findings;
}

/** What a hash is applied to: a password, or a token (CSRF, reset, session…); null for other uses (checksums, cache keys). */
function hashContext(ancestors: readonly AstNode[], argument: AstNode | null): { what: string; password: boolean } | null {
  const parent = ancestors.at(-1);
  const grandparent = ancestors.at(-2);
  const updated = parent?.type === 'MemberExpression' && grandparent?.type === 'CallExpression' && identifierName(child(parent, 'property')) === 'update' ? children(grandparent, 'arguments')[0] ?? null : argument;
  const input = memberPath(updated) ?? '';
  if (/pass(?:word|wd)?|pwd/i.test(input)) return { what: input, password: true };
  const target = targetName(ancestors) ?? '';
  if (/pass(?:word|wd)?|pwd/i.test(target)) return { what: `a password (${target})`, password: true };
  if (/token|csrf|xsrf|nonce|otp|reset|session|secret|api[_-]?key|invite|verification/i.test(`${target} ${input}`)) return { what: `a token (${target || input})`, password: false };
  return null;
}

/** `import md5 from 'md5'`, `const CryptoJS = require('crypto-js')`: local name → package. */
function collectHashImport(statement: AstNode, into: Map<string, string>): void {
  if (statement.type === 'ImportDeclaration') {
    const module = staticString(child(statement, 'source')) ?? '';
    if (!hashPackages.test(module)) return;
    for (const specifier of children(statement, 'specifiers')) {
      const local = identifierName(child(specifier, 'local'));
      if (local) into.set(local, module);
    }
  } else if (statement.type === 'VariableDeclaration') {
    for (const declarator of children(statement, 'declarations')) {
      const init = child(declarator, 'init');
      const module = init?.type === 'CallExpression' && identifierName(child(init, 'callee')) === 'require' ? staticString(children(init, 'arguments')[0] ?? null) ?? '' : '';
      const local = identifierName(child(declarator, 'id'));
      if (local && hashPackages.test(module)) into.set(local, module);
    }
  }
}

/** `"… AND password = '" + password + "'"`: the name compared with the password column, when it is not a hash. */
function plaintextComparison(node: AstNode): string | null {
  const parts: AstNode[] = [];
  const flatten = (part: AstNode | null): void => {
    if (!part) return;
    if (part.type === 'BinaryExpression' && part.operator === '+') {
      flatten(child(part, 'left'));
      flatten(child(part, 'right'));
    } else if (part.type === 'TemplateLiteral') {
      const quasis = children(part, 'quasis');
      const expressions = children(part, 'expressions');
      quasis.forEach((quasi, index) => {
        parts.push(quasi);
        const expression = expressions[index];
        if (expression) parts.push(expression);
      });
    } else {
      parts.push(part);
    }
  };
  flatten(node);
  const text = (part: AstNode): string | null => (part.type === 'TemplateElement' ? (part.value as { cooked?: string }).cooked ?? '' : staticString(part));
  if (!/\b(?:select|update|delete)\b/i.test(parts.map((part) => text(part) ?? ' ? ').join(''))) return null;
  for (let index = 0; index + 1 < parts.length; index += 1) {
    const before = text(parts[index] as AstNode);
    const value = memberPath(parts[index + 1] as AstNode);
    if (before !== null && /\b(?:pass(?:word|wd)?|pwd)\s*=\s*['"]?$/i.test(before) && value && passwordName.test(value) && !hashedName.test(value)) return value;
  }
  return null;
}

/** A property of the object handed to a lookup (`findOne({ password })`, `where: { password }`). */
function isQueryFilter(ancestors: readonly AstNode[]): boolean {
  for (let index = ancestors.length - 1; index >= 0; index -= 1) {
    const node = ancestors[index] as AstNode;
    if (node.type === 'CallExpression') return /\.(?:find|findOne|findFirst|findUnique|findAll|findOneBy|findBy|where|count|exists)$/.test(calleePath(node) ?? '');
    if (node.type !== 'ObjectExpression' && node.type !== 'Property') return false;
  }
  return false;
}

/** The name the expression is assigned to, or of the enclosing function. */
function targetName(ancestors: readonly AstNode[]): string | null {
  for (let index = ancestors.length - 1; index >= 0; index -= 1) {
    const node = ancestors[index] as AstNode;
    if (node.type === 'VariableDeclarator') return identifierName(child(node, 'id'));
    if (node.type === 'AssignmentExpression') return memberPath(child(node, 'left'));
    if (node.type === 'Property') return identifierName(child(node, 'key'));
    if (node.type === 'FunctionDeclaration') return identifierName(child(node, 'id'));
    if (node.type === 'ReturnStatement') {
      const fn = ancestors.slice(0, index).reverse().find((candidate) => candidate.type.includes('Function'));
      const owner = fn ? ancestors[ancestors.indexOf(fn) - 1] : undefined;
      return identifierName(child(fn ?? node, 'id')) ?? (owner?.type === 'VariableDeclarator' ? identifierName(child(owner, 'id')) : null);
    }
  }
  return null;
}

function numericOption(options: AstNode | null, key: string): number | null {
  if (options?.type !== 'ObjectExpression') return null;
  const property = children(options, 'properties').find((candidate) => identifierName(child(candidate, 'key')) === key);
  const value = property ? child(property, 'value') : null;
  return value?.type === 'Literal' && typeof value.value === 'number' ? value.value : null;
}
