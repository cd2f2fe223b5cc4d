// Container JWTs: issuance, each verification failure class, key files, rotation, revocation across restarts.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCredentials, tokenAudience, tokenIssuer } from '../../src/gateway/credentials.js';
import { keysFileName, revocationsFileName } from '../../src/gateway/keyring.js';

let keysDir: string;
const inAnHour = (): Date => new Date(Date.now() + 3_600_000);

beforeEach(async () => {
  keysDir = join(await mkdtemp(join(tmpdir(), 'cadre-keys-')), 'keys');
});
afterEach(async () => {
  await rm(join(keysDir, '..'), { recursive: true, force: true });
});

async function currentKey(): Promise<{ kid: string; secret: Buffer }> {
  const file = JSON.parse(await readFile(join(keysDir, keysFileName), 'utf8')) as { current: string; keys: Array<{ kid: string; secret: string }> };
  const entry = file.keys.find((key) => key.kid === file.current);
  if (entry === undefined) throw new Error('no current key');
  return { kid: entry.kid, secret: Buffer.from(entry.secret, 'base64url') };
}

describe('container credentials', () => {
  it('issues a token with the claims and verifies it', async () => {
    const credentials = await openCredentials({ keysDir });
    const deadline = inAnHour();
    const { token, jti, exp } = credentials.issueContainerToken({ session: 's1', cid: 'c1', deadline });
    const decoded = jwt.decode(token, { complete: true });
    expect(decoded?.header).toMatchObject({ alg: 'HS256', kid: (await currentKey()).kid });
    expect(decoded?.payload).toMatchObject({ iss: tokenIssuer, aud: tokenAudience, sub: 's1', cid: 'c1', jti, exp: Math.floor(deadline.getTime() / 1000) });
    expect(exp).toBe(Math.floor(deadline.getTime() / 1000));
    expect(credentials.verifyContainerToken(token)).toEqual({ ok: true, claims: { session: 's1', cid: 'c1', jti, exp, kid: (await currentKey()).kid } });
  });

  it('keeps ≥ 32 random bytes of secret in files only the owner can read', async () => {
    await openCredentials({ keysDir });
    expect((await stat(join(keysDir, keysFileName))).mode & 0o777).toBe(0o600);
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    expect((await currentKey()).secret.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses each class of bad token with its reason', async () => {
    const credentials = await openCredentials({ keysDir });
    const { kid, secret } = await currentKey();
    const exp = Math.floor(Date.now() / 1000) + 600;
    const claims = { sub: 's1', cid: 'c1', jti: 'abcdefgh-1234', iss: tokenIssuer, aud: tokenAudience };
    const sign = (payload: object, options: jwt.SignOptions = {}, key: Buffer | string = secret): string =>
      jwt.sign(payload, key, { algorithm: 'HS256', keyid: kid, ...options });
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url');

    const cases: Array<[string, string]> = [
      ['algorithm', `${header}.${body}.`],
      ['signature', sign({ ...claims, exp }, {}, Buffer.alloc(32, 7))],
      ['expired', sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 })],
      ['no-exp', sign(claims)],
      ['audience', sign({ ...claims, exp, aud: 'someone-else' })],
      ['issuer', sign({ ...claims, exp, iss: 'someone-else' })],
      ['unknown-kid', sign({ ...claims, exp }, { keyid: 'k-not-ours' })],
      ['algorithm', jwt.sign({ ...claims, exp }, secret, { algorithm: 'HS512', keyid: kid })],
      ['malformed', 'not.a.jwt'],
      ['missing', ''],
    ];
    for (const [reason, token] of cases) {
      expect({ reason, result: credentials.verifyContainerToken(token) }).toMatchObject({ reason, result: { ok: false, reason } });
    }
    expect(credentials.verifyContainerToken(sign({ ...claims, exp }))).toMatchObject({ ok: true });
  });

  it('keeps revocations across a restart', async () => {
    const first = await openCredentials({ keysDir });
    const { token, jti, exp } = first.issueContainerToken({ session: 's1', cid: 'c1', deadline: inAnHour() });
    await first.revoke(jti, exp);
    expect(first.verifyContainerToken(token)).toEqual({ ok: false, reason: 'revoked', jtiPrefix: jti.slice(0, 8) });
    expect((await stat(join(keysDir, revocationsFileName))).mode & 0o777).toBe(0o600);

    const restarted = await openCredentials({ keysDir });
    expect(restarted.verifyContainerToken(token)).toMatchObject({ ok: false, reason: 'revoked' });
    const other = restarted.issueContainerToken({ session: 's1', cid: 'c2', deadline: inAnHour() });
    expect(restarted.verifyContainerToken(other.token)).toMatchObject({ ok: true });
  });

  it('rotates keys: old tokens verify until retired keys age out, new tokens use the new kid', async () => {
    let now = Date.now();
    const credentials = await openCredentials({ keysDir, maxLifetimeMs: 3_600_000, now: () => now });
    const old = credentials.issueContainerToken({ session: 's1', cid: 'c1', deadline: new Date(now + 1_800_000) });
    const newKid = await credentials.rotate();
    const fresh = credentials.issueContainerToken({ session: 's1', cid: 'c2', deadline: new Date(now + 1_800_000) });
    expect(jwt.decode(fresh.token, { complete: true })?.header.kid).toBe(newKid);
    expect(credentials.verifyContainerToken(old.token)).toMatchObject({ ok: true });
    expect((await openCredentials({ keysDir, now: () => now })).verifyContainerToken(old.token)).toMatchObject({ ok: true });

    now += 2 * 3_600_000;
    await credentials.rotate();
    expect(credentials.verifyContainerToken(old.token)).toMatchObject({ ok: false, reason: 'unknown-kid' });
  });

  it('a token verified before is refused at once once revoked, expired, or its key aged out; a forged twin is not taken for it', async () => {
    let now = Date.now();
    const credentials = await openCredentials({ keysDir, maxLifetimeMs: 3_600_000, now: () => now });
    const revoked = credentials.issueContainerToken({ session: 's1', cid: 'c1', deadline: new Date(now + 1_800_000) });
    const expiring = credentials.issueContainerToken({ session: 's1', cid: 'c2', deadline: new Date(now + 60_000) });
    const aging = credentials.issueContainerToken({ session: 's1', cid: 'c3', deadline: new Date(now + 3_000_000) });
    for (const { token } of [revoked, expiring, aging]) expect(credentials.verifyContainerToken(token)).toMatchObject({ ok: true });
    // Same header and claims, another signature: verified on its own, refused.
    const [header, body] = revoked.token.split('.');
    expect(credentials.verifyContainerToken(`${header}.${body}.${Buffer.alloc(32, 1).toString('base64url')}`)).toMatchObject({ ok: false, reason: 'signature' });

    await credentials.revoke(revoked.jti, revoked.exp);
    expect(credentials.verifyContainerToken(revoked.token)).toEqual({ ok: false, reason: 'revoked', jtiPrefix: revoked.jti.slice(0, 8) });
    now += 61_000;
    expect(credentials.verifyContainerToken(expiring.token)).toMatchObject({ ok: false, reason: 'expired' });
    expect(credentials.verifyContainerToken(aging.token)).toMatchObject({ ok: true, claims: { cid: 'c3', jti: aging.jti } });
    await credentials.rotate();
    now += 3_700_000;
    await credentials.rotate();
    expect(credentials.verifyContainerToken(aging.token)).toMatchObject({ ok: false, reason: 'unknown-kid' });
  });

  it('refuses a deadline in the past or beyond the longest lifetime', async () => {
    const credentials = await openCredentials({ keysDir, maxLifetimeMs: 60_000 });
    expect(() => credentials.issueContainerToken({ session: 's', cid: 'c', deadline: new Date(Date.now() - 1) })).toThrow(/deadline/);
    expect(() => credentials.issueContainerToken({ session: 's', cid: 'c', deadline: new Date(Date.now() + 120_000) })).toThrow(/deadline/);
  });
});
