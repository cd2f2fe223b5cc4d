// JWT verification that trusts the token: alg "none" accepted, signatures not checked, the RSA public key used as an HMAC secret.
import { type AstNode, calleePath, child, children, memberPath, staticString, walk } from '../../../project/ast.js';
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

const jwtModules = /^(?:jwt-simple|jsonwebtoken|jose|jws|jwt-decode)$/;

export function checkJwt(file: SourceFile, scope: FileScope): Finding[] {
  if (!file.parsed || ![...scope.imports.values()].some((imported) => jwtModules.test(imported.module))) return [];
  const findings: Finding[] = [];
  const push = (node: AstNode, meta: RuleMeta, message: string): void => {
    findings.push(findingAt(file, node, meta, { severity: 'High', message, fix: meta.help }));
  };
  walk(file.parsed.program, (node) => {
    if (node.type === 'IfStatement' && comparesAlgToNone(child(node, 'test')) && acceptsInBranch(child(node, 'consequent'))) {
      push(node, jwtPatternRules.none, 'A token whose header says alg "none" is accepted without any signature.');
      return;
    }
    if (node.type !== 'CallExpression') return;
    const callee = calleePath(node) ?? '';
    const root = callee.split('.')[0] ?? '';
    const module = scope.imports.get(root)?.module;
    const args = children(node, 'arguments');
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
