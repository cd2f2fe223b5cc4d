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
};

const secretNames = /(?:token|secret|password|passwd|salt|nonce|otp|key|session|csrf|reset|verification|invite|api)/i;

export function checkCrypto(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const findings: Finding[] = [];
  const push = (node: AstNode, meta: RuleMeta, severity: Finding['severity'], message: string): void => {
    findings.push(findingAt(file, node, meta, { severity, message, fix: meta.help }));
  };
  walk(file.parsed.program, (node, ancestors) => {
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
    if (/(?:^|\.)createHash$/.test(callee) && /^(?:md4|md5|sha1|sha-1|sha256|sha512|sha-256|sha-512)$/.test(algorithm)) {
      const context = hashContext(ancestors);
      if (context) {
        const broken = /md|sha1|sha-1/.test(algorithm);
        push(node, cryptoRules.passwordHash, broken ? 'High' : 'Medium', `${algorithm} is used to hash ${context}: ${broken ? 'it is broken and fast' : 'a fast unsalted hash is brute-forced quickly'}.`);
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

/** What a hash is applied to, when it is a password; null otherwise. */
function hashContext(ancestors: readonly AstNode[]): string | null {
  const parent = ancestors.at(-1);
  const grandparent = ancestors.at(-2);
  if (parent?.type === 'MemberExpression' && grandparent?.type === 'CallExpression' && identifierName(child(parent, 'property')) === 'update') {
    const input = memberPath(children(grandparent, 'arguments')[0] ?? null) ?? '';
    if (/pass(?:word|wd)?|pwd/i.test(input)) return input;
  }
  const scope = targetName(ancestors) ?? '';
  if (/pass(?:word|wd)?|pwd/i.test(scope)) return `a password (${scope})`;
  return null;
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
