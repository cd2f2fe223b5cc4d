// The SSH test server's keys: every pair it draws must be one ssh2 (and OpenSSH) can read back. ssh2 writes about one ed25519
// pair in 256 malformed, which failed a full CI run when the server started with such a host key.
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { ed25519Pair, ed25519PublicBlobBytes, throwAwayKey } from './ssh-git-server.js';

describe('ed25519 key pairs for the SSH git server', () => {
  it('are all readable, host keys and client keys (2,000 drawn: the bad ones come about one in 256)', () => {
    const unreadable: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const host = ed25519Pair();
      const client = throwAwayKey();
      for (const text of [host.private, host.public, client.privateKey, client.publicKey]) {
        const key = ssh2.utils.parseKey(text);
        if (key instanceof Error) unreadable.push(key.message);
        else if (key.getPublicSSH().length !== ed25519PublicBlobBytes) unreadable.push(`public key of ${key.getPublicSSH().length} bytes`);
      }
    }
    expect(unreadable).toEqual([]);
  });
});
