// The gateway's host-only signing keys and revoked token ids, persisted in the keys folder (mode 0600).
import { createSecretKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CadreError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';

const secretBytes = 32;

const keyEntrySchema = z.object({
  kid: z.string().min(1),
  /** base64url of ≥ 32 random bytes. */
  secret: z.string().min(43),
  createdAt: z.number(),
  /** Set when a newer key replaced this one; kept to verify tokens issued before, until they expire. */
  retiredAt: z.number().optional(),
});

const keysFileSchema = z.object({ version: z.literal(1), current: z.string(), keys: z.array(keyEntrySchema).min(1) });
/** jti → the token's exp (seconds); an entry is dropped once its token would have expired anyway. */
const revocationsFileSchema = z.object({ version: z.literal(1), revoked: z.record(z.string(), z.number()) });

export type KeyEntry = z.infer<typeof keyEntrySchema>;
type KeysFile = z.infer<typeof keysFileSchema>;

export interface Keyring {
  current(): { kid: string; secret: KeyObject };
  /** The secret for a key id, or undefined for an unknown (or pruned) one. */
  secretFor(kid: string): KeyObject | undefined;
  /** Makes a new key current; the old one keeps verifying for `maxLifetimeMs`. Returns the new kid. */
  rotate(): Promise<string>;
  isRevoked(jti: string): boolean;
  revoke(jti: string, exp: number): Promise<void>;
}

export const keysFileName = 'gateway-keys.json';
export const revocationsFileName = 'gateway-revocations.json';

/** Opens (creating on first use) the keyring in `keysDir`. */
export async function openKeyring(options: { keysDir: string; maxLifetimeMs: number; now: () => number }): Promise<Keyring> {
  const { keysDir, maxLifetimeMs, now } = options;
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const keysPath = join(keysDir, keysFileName);
  const revocationsPath = join(keysDir, revocationsFileName);

  let keys = (await readJson(keysPath, keysFileSchema)) ?? (await createKeysFile(keysPath, now()));
  const revoked = new Map(Object.entries((await readJson(revocationsPath, revocationsFileSchema))?.revoked ?? {}));
  let writes: Promise<void> = Promise.resolve();
  const serialized = (write: () => Promise<void>): Promise<void> => (writes = writes.then(write, write));

  // KeyObjects made once: given raw bytes, jsonwebtoken tries (and fails) to parse a public key on every call.
  const secrets = (): Map<string, KeyObject> => new Map(keys.keys.map((entry) => [entry.kid, createSecretKey(Buffer.from(entry.secret, 'base64url'))]));
  let secretByKid = secrets();

  return {
    current() {
      const secret = secretByKid.get(keys.current);
      if (secret === undefined) throw new Error(`gateway keyring has no current key ${keys.current}`);
      return { kid: keys.current, secret };
    },
    secretFor: (kid) => secretByKid.get(kid),
    async rotate() {
      const at = now();
      const kept = keys.keys.filter((entry) => entry.retiredAt === undefined || at - entry.retiredAt < maxLifetimeMs);
      for (const entry of kept) entry.retiredAt ??= at;
      const kid = addKey(kept, at);
      keys = { version: 1, current: kid, keys: kept };
      secretByKid = secrets();
      await serialized(() => writeSecretFile(keysPath, keys));
      return kid;
    },
    isRevoked: (jti) => revoked.has(jti),
    async revoke(jti, exp) {
      revoked.set(jti, exp);
      const nowSeconds = Math.floor(now() / 1000);
      for (const [id, until] of revoked) if (until < nowSeconds) revoked.delete(id);
      await serialized(() => writeSecretFile(revocationsPath, { version: 1, revoked: Object.fromEntries(revoked) }));
    },
  };
}

async function createKeysFile(path: string, at: number): Promise<KeysFile> {
  const entries: KeyEntry[] = [];
  const keys: KeysFile = { version: 1, current: addKey(entries, at), keys: entries };
  await writeSecretFile(path, keys);
  return keys;
}

function addKey(entries: KeyEntry[], at: number): string {
  const kid = `k${at.toString(36)}${randomBytes(3).toString('hex')}`;
  entries.push({ kid, secret: randomBytes(secretBytes).toString('base64url'), createdAt: at });
  return kid;
}

async function readJson<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return schema.parse(JSON.parse(text));
  } catch (cause) {
    throw new CadreError('gateway.keys-unreadable', `The gateway's key file ${path} is not valid.`, {
      remedy: 'Remove the file: cadre creates new keys (containers running now lose model access and must be recreated).',
      cause,
    });
  }
}

function writeSecretFile(path: string, data: unknown): Promise<void> {
  return writeFileAtomic(path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
}
