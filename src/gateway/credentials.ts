// Container credentials: short-lived HS256 session JWTs (kid, iss, aud, sub, cid, jti, exp), verification, revocation.
import { hash, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { CadreError } from '../errors.js';
import { openKeyring } from './keyring.js';

export const tokenIssuer = 'cadre-host';
export const tokenAudience = 'cadre-gateway';
const defaultMaxLifetimeMs = 24 * 60 * 60 * 1000;
/** Tokens remembered as verified; the oldest is forgotten past this (a container holds one token, a host a few hundred containers). */
const maxRememberedTokens = 1_024;

export interface ContainerClaims {
  session: string;
  cid: string;
  jti: string;
  /** Seconds since the epoch: the container's deadline. */
  exp: number;
  kid: string;
}

export type TokenFailureReason =
  | 'missing'
  | 'malformed'
  | 'algorithm'
  | 'signature'
  | 'expired'
  | 'no-exp'
  | 'audience'
  | 'issuer'
  | 'unknown-kid'
  | 'revoked'
  | 'claims';

export type TokenVerification =
  | { ok: true; claims: ContainerClaims }
  /** `jtiPrefix` is at most 8 characters of the token's jti, when one could be read: safe for the audit trail. */
  | { ok: false; reason: TokenFailureReason; jtiPrefix?: string };

export interface Credentials {
  /** Signs a token for one container of one session, valid until `deadline`. */
  issueContainerToken(input: { session: string; cid: string; deadline: Date }): { token: string; jti: string; exp: number };
  /** Synchronous: it runs on every gateway call. */
  verifyContainerToken(token: string | undefined): TokenVerification;
  /** Revokes a token id; persisted, so it holds after a restart. `exp` lets the entry be dropped after expiry. */
  revoke(jti: string, exp?: number): Promise<void>;
  /** Rotates the signing key; tokens signed with the old one stay valid until they expire. */
  rotate(): Promise<string>;
}

/**
 * Opens the credential store whose secrets live in `keysDir` (created mode 0700, files 0600).
 * `maxLifetimeMs` bounds a token's lifetime and how long a retired key keeps verifying.
 */
export async function openCredentials(options: {
  keysDir: string;
  maxLifetimeMs?: number;
  now?: () => number;
}): Promise<Credentials> {
  const now = options.now ?? Date.now;
  const maxLifetimeMs = options.maxLifetimeMs ?? defaultMaxLifetimeMs;
  const keyring = await openKeyring({ keysDir: options.keysDir, maxLifetimeMs, now });
  // Verified tokens by their SHA-256: verifying an HS256 JWT costs ~0.1 ms, on every gateway call.
  const verified = new Map<string, ContainerClaims>();

  return {
    issueContainerToken({ session, cid, deadline }) {
      const issuedAt = now();
      const deadlineMs = deadline.getTime();
      if (!(deadlineMs > issuedAt) || deadlineMs - issuedAt > maxLifetimeMs) {
        throw new CadreError('gateway.token-lifetime', `A container deadline must lie in the next ${Math.round(maxLifetimeMs / 60_000)} minutes.`, {
          remedy: 'Use a shorter --timeout for the container.',
        });
      }
      const { kid, secret } = keyring.current();
      const jti = randomUUID();
      const exp = Math.floor(deadlineMs / 1000);
      const token = jwt.sign({ cid, exp, iat: Math.floor(issuedAt / 1000) }, secret, {
        algorithm: 'HS256',
        keyid: kid,
        issuer: tokenIssuer,
        audience: tokenAudience,
        subject: session,
        jwtid: jti,
      });
      return { token, jti, exp };
    },

    verifyContainerToken(token) {
      if (token === undefined || token === '') return { ok: false, reason: 'missing' };
      // The signature, audience and issuer of a token verified before hold; what can change since is checked every time.
      const key = hash('sha256', token, 'base64url');
      const known = verified.get(key);
      if (known !== undefined) {
        const fail = (reason: TokenFailureReason): TokenVerification => ({ ok: false, reason, jtiPrefix: known.jti.slice(0, 8) });
        if (keyring.secretFor(known.kid) === undefined) return fail('unknown-kid');
        if (Math.floor(now() / 1000) >= known.exp) return fail('expired');
        if (keyring.isRevoked(known.jti)) return fail('revoked');
        return { ok: true, claims: { ...known } };
      }
      const decoded = jwt.decode(token, { complete: true });
      if (decoded === null || typeof decoded.payload === 'string') return { ok: false, reason: 'malformed' };
      const jtiPrefix = typeof decoded.payload.jti === 'string' ? decoded.payload.jti.slice(0, 8) : undefined;
      const fail = (reason: TokenFailureReason): TokenVerification => ({ ok: false, reason, ...(jtiPrefix === undefined ? {} : { jtiPrefix }) });
      if (decoded.header.alg !== 'HS256') return fail('algorithm');
      const kid = decoded.header.kid;
      const secret = kid === undefined ? undefined : keyring.secretFor(kid);
      if (kid === undefined || secret === undefined) return fail('unknown-kid');
      let payload: jwt.JwtPayload;
      try {
        const verified = jwt.verify(token, secret, {
          algorithms: ['HS256'],
          audience: tokenAudience,
          issuer: tokenIssuer,
          clockTimestamp: Math.floor(now() / 1000),
        });
        if (typeof verified === 'string') return fail('malformed');
        payload = verified;
      } catch (error) {
        return fail(classify(error));
      }
      if (typeof payload.exp !== 'number') return fail('no-exp');
      const { sub, cid, jti } = payload;
      if (typeof sub !== 'string' || typeof cid !== 'string' || typeof jti !== 'string') return fail('claims');
      if (keyring.isRevoked(jti)) return fail('revoked');
      const claims: ContainerClaims = { session: sub, cid, jti, exp: payload.exp, kid };
      if (verified.size >= maxRememberedTokens) verified.delete(verified.keys().next().value!);
      verified.set(key, claims);
      return { ok: true, claims };
    },

    revoke: (jti, exp) => keyring.revoke(jti, exp ?? Math.floor((now() + maxLifetimeMs) / 1000)),
    rotate: () => keyring.rotate(),
  };
}

function classify(error: unknown): TokenFailureReason {
  if (error instanceof jwt.TokenExpiredError) return 'expired';
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('jwt audience invalid')) return 'audience';
  if (message.startsWith('jwt issuer invalid')) return 'issuer';
  if (message === 'invalid signature') return 'signature';
  if (message === 'invalid algorithm' || message === 'jwt signature is required') return 'algorithm';
  return 'malformed';
}
