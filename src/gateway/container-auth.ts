// Who is calling the gateway: the container's JWT, checked for this gateway's container, session and credential.
import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from './credentials.js';
import { presentedToken } from './providers.js';

export type ContainerAuth =
  | { ok: true; /** The first 8 characters of the token's jti: safe for the audit trail. */ jti: string }
  | { ok: false; reason: string; jti?: string };

/**
 * Accepts only a valid token of `container` (and of its one credential, when the gateway is bound to one). A valid token of
 * another container is `wrong-container`; one of this container that an earlier session or cadre process was given (its
 * gateway reopened since, say after /vm-restart or a restart of cadre) is `superseded`.
 */
export function authenticateContainer(
  credentials: Pick<Credentials, 'verifyContainerToken'>,
  container: { cid: string; session: string; jti?: string },
  headers: IncomingHttpHeaders,
): ContainerAuth {
  const verification = credentials.verifyContainerToken(presentedToken(headers));
  if (!verification.ok) return { ok: false, reason: verification.reason, ...(verification.jtiPrefix === undefined ? {} : { jti: verification.jtiPrefix }) };
  const { claims } = verification;
  const jti = claims.jti.slice(0, 8);
  if (claims.cid !== container.cid) return { ok: false, reason: 'wrong-container', jti };
  const superseded = claims.session !== container.session || (container.jti !== undefined && claims.jti !== container.jti);
  return superseded ? { ok: false, reason: 'superseded', jti } : { ok: true, jti };
}
