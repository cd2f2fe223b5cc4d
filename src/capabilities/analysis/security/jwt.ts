// JWT verification that trusts the token: alg "none" accepted, signatures not checked, the RSA public key used as an HMAC secret.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';
import type { FileScope } from './scope.js';
import { jwtRules } from './sinks.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'security', category: 'crypto', title, help });

export const jwtPatternRules = {
  none: rule('security/jwt-none-accepted', 'Unsigned JWTs (alg "none") accepted', 'Reject alg "none": verify every token with a pinned algorithm and your key.'),
  unverified: rule('security/jwt-not-verified', 'JWT decoded without checking its signature', 'Verify the signature (jwt.verify / jose.jwtVerify) before trusting any claim.'),
  publicKeyAsSecret: rule('security/jwt-public-key-as-secret', 'RSA public key used as an HMAC secret', 'Verify RS256 tokens with the public key and RS256 only; never accept HS* with a key anyone can read.'),
  ...jwtRules,
};

const jwtModules = /^(?:jwt-simple|jsonwebtoken|jose|jws|jwt-decode|express-jwt|passport-jwt|koa-jwt|@fastify\/jwt|fastify-jwt)$/;

export function checkJwt(file: SourceFile, scope: FileScope): Finding[] {
  if (!file.parsed || ![...scope.imports.values()].some((imported) => jwtModules.test(imported.module))) return [];
  const findings: Finding[] = [];
  const push = (node: AstNode, meta: RuleMeta, message: string): void => {
    findings.push(findingAt(file, node, meta, { severity: 'High', message, fix: meta.help }));
  };
  const objects = objectsByName(file.parsed.program);
  walk(file.parsed.program, (node) => {
    if (node.type === 'IfStatement' && comparesAlgToNone(child(node, 'test')) && acceptsInBranch(child(node, 'consequent'))) {
      push(node, jwtPatternRules.none, 'A token whose header says alg "none" is accepted without any signature.');
      return;
    }
    if (node.type !== 'CallExpression' && node.type !== 'NewExpression') return;
    const callee = calleePath(node) ?? '';
    const root = callee.split('.')[0] ?? '';
    const module = scope.imports.get(root)?.module;
    const args = children(node, 'arguments');
    const noneAlgorithm = acceptsNone(module, args.map((argument) => (argument.type === 'Identifier' ? objects.get(argument.name as string) ?? argument : argument)));
    if (noneAlgorithm) {
      // jsonwebtoken refuses an unsigned token while it is given a key; an empty or token-chosen key lets it through.
      const key = node.type === 'CallExpression' && /(?:^|\.)verify$/.test(callee) ? args[1] ?? null : null;
      const open = key !== null && (isFalsy(key) || key.type === 'ConditionalExpression' || key.type === 'LogicalExpression');
      findings.push(findingAt(file, noneAlgorithm, jwtPatternRules.none, {
        severity: open || module !== 'jsonwebtoken' ? 'High' : 'Medium',
        message: open
          ? `${callee}() accepts alg "none" with an empty or token-chosen key: a token with no signature passes.`
          : `${callee}() lists "none" among the algorithms it accepts: one empty key or library change away, a token with no signature passes.`,
        fix: jwtPatternRules.none.help,
      }));
    }
    if (node.type !== 'CallExpression') return;
    if (module === 'jwt-simple' && /(?:^|\.)decode$/.test(callee)) {
      if (args[2]?.type === 'Literal' && args[2].value === true) push(node, jwtPatternRules.unverified, `${callee}(token, key, true) skips the signature check: any token is accepted.`);
      if (/^HS\d+$/.test(staticString(args[3] ?? null) ?? '') && /public/i.test(memberPath(args[1] ?? null) ?? '')) push(node, jwtPatternRules.publicKeyAsSecret, `${callee}() checks an HMAC signature with the RSA public key: whoever has the public key can sign tokens.`);
    }
    if (module === 'jsonwebtoken' && /(?:^|\.)verify$/.test(callee) && /public/i.test(memberPath(args[1] ?? null) ?? '') && /HS\d/.test(JSON.stringify(staticStrings(args[2] ?? null)))) {
      push(node, jwtPatternRules.publicKeyAsSecret, `${callee}() accepts HMAC algorithms with the RSA public key as the secret.`);
    }
  });
  return findings;
}

function isFalsy(node: AstNode): boolean {
  if (node.type === 'Identifier') return node.name === 'undefined';
  return node.type === 'Literal' && !node.value && !('regex' in node);
}

/** Object literals given once to a name in this file (`const opts = { algorithms: … }; new JwtStrategy(opts, verify)`). */
function objectsByName(program: AstNode): Map<string, AstNode> {
  const objects = new Map<string, AstNode>();
  const seen = new Set<string>();
  walk(program, (node) => {
    if (node.type !== 'VariableDeclarator') return;
    const name = identifierName(child(node, 'id'));
    const init = child(node, 'init');
    if (!name) return;
    if (seen.has(name)) objects.delete(name);
    else if (init?.type === 'ObjectExpression') objects.set(name, init);
    seen.add(name);
  });
  return objects;
}

/** Verification options that accept unsigned tokens: `algorithms: ['HS256', 'none']` (jsonwebtoken, jose, express-jwt, passport-jwt), or jose's `JWK.None` key. */
function acceptsNone(module: string | undefined, args: AstNode[]): AstNode | null {
  if (!module || !/^(?:jsonwebtoken|jose|jws|express-jwt|passport-jwt|koa-jwt|@fastify\/jwt|fastify-jwt)$/.test(module)) return null;
  if (module === 'jose' && args.some((argument) => /(?:^|\.)None$/.test(memberPath(argument) ?? ''))) return args.find((argument) => /(?:^|\.)None$/.test(memberPath(argument) ?? '')) ?? null;
  for (const argument of args) {
    if (argument.type !== 'ObjectExpression') continue;
    for (const property of children(argument, 'properties')) {
      const key = identifierName(child(property, 'key')) ?? staticString(child(property, 'key'));
      if (key !== 'algorithms') continue;
      if (staticStrings(child(property, 'value')).some((text) => /^none$/i.test(text))) return property;
    }
  }
  return null;
}

function comparesAlgToNone(test: AstNode | null): boolean {
  let found = false;
  if (!test) return false;
  walk(test, (node) => {
    if (node.type !== 'BinaryExpression' || !/^[!=]==?$/.test(String(node.operator)) || String(node.operator).startsWith('!')) return;
    const sides = [child(node, 'left'), child(node, 'right')];
    if (sides.some((side) => /\.alg$/.test(memberPath(side) ?? '')) && sides.some((side) => /^none$/i.test(staticString(side) ?? ''))) found = true;
  });
  return found;
}

/** The branch returns (accepts) rather than throws. */
function acceptsInBranch(branch: AstNode | null): boolean {
  if (!branch) return false;
  if (branch.type === 'ReturnStatement') return true;
  const statements = branch.type === 'BlockStatement' ? children(branch, 'body') : [branch];
  return statements.some((statement) => statement.type === 'ReturnStatement') && !statements.some((statement) => statement.type === 'ThrowStatement');
}

function staticStrings(node: AstNode | null): string[] {
  const found: string[] = [];
  if (node) walk(node, (inner) => {
    const text = staticString(inner);
    if (text !== null) found.push(text);
  });
  return found;
}
