// A real SSH server on 127.0.0.1 (the ssh2 library) that serves git over SSH from bare repositories, accepting one public key only.
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ssh2 from 'ssh2';

export interface SshGitServer {
  port: number;
  /** The server's host key line for a known_hosts file. */
  knownHostsLine: string;
  /** git-upload-pack commands the server ran, as the client asked for them. */
  commands: string[];
  close(): Promise<void>;
}

/**
 * Serves `git-upload-pack '<path>'` from `reposDir` (read-only: receive-pack is refused) to a client that authenticates with the
 * private key of `authorizedKey` (an OpenSSH public key line). Anything else is refused.
 */
export async function startSshGitServer(options: { reposDir: string; authorizedKey: string }): Promise<SshGitServer> {
  const { utils, Server } = ssh2;
  const hostKey = ed25519Pair();
  const allowed = utils.parseKey(options.authorizedKey);
  if (allowed instanceof Error) throw allowed;
  const commands: string[] = [];
  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    client.on('authentication', (ctx) => {
      const key = ctx.method === 'publickey' ? ctx.key : undefined;
      const matches = key !== undefined && key.algo === allowed.type && key.data.equals(allowed.getPublicSSH());
      if (!matches || ctx.method !== 'publickey') return ctx.reject(['publickey']);
      if (ctx.signature && !allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo)) return ctx.reject(['publickey']);
      return ctx.accept();
    });
    client.on('session', (accept) => {
      accept().on('exec', (acceptExec, reject, info) => {
        const match = /^git-upload-pack '\/?([\w./-]+)'$/.exec(info.command);
        if (!match || match[1]!.includes('..')) return reject();
        commands.push(info.command);
        const stream = acceptExec();
        const child = spawn('git-upload-pack', [join(options.reposDir, match[1]!)], { stdio: ['pipe', 'pipe', 'pipe'] });
        stream.pipe(child.stdin);
        // The channel closes only after its exit status is sent: ssh reports a channel closed without one as a failure.
        child.stdout.pipe(stream, { end: false });
        child.stderr.pipe(stream.stderr, { end: false });
        child.on('close', (code) => {
          stream.exit(code ?? 1);
          stream.end();
        });
        return undefined;
      });
    });
    client.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const publicKey = utils.parseKey(hostKey.public);
  if (publicKey instanceof Error) throw publicKey;
  return {
    port,
    knownHostsLine: `[127.0.0.1]:${port} ${publicKey.type} ${publicKey.getPublicSSH().toString('base64')}`,
    commands,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A throw-away ed25519 client key pair: the private key in OpenSSH format, the public key line. */
export function throwAwayKey(): { privateKey: string; publicKey: string } {
  const pair = ed25519Pair();
  return { privateKey: pair.private, publicKey: pair.public };
}

/** An ed25519 public key in SSH wire form: the length-prefixed name `ssh-ed25519`, then the length-prefixed 32-byte key. */
export const ed25519PublicBlobBytes = 4 + 'ssh-ed25519'.length + 4 + 32;

/**
 * An ed25519 key pair from ssh2 that ssh2 itself (and OpenSSH) can read back. ssh2 1.x strips every leading zero byte of the
 * public key it writes, so about one pair in 256 comes out malformed (mscdex/ssh2#1390, #1513): a full CI run met it as
 * "Cannot parse privateKey: Malformed OpenSSH private key" when the SSH server started. Such a pair is drawn again.
 */
export function ed25519Pair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    const pub = ssh2.utils.parseKey(pair.public);
    const priv = ssh2.utils.parseKey(pair.private);
    if (!(pub instanceof Error) && !(priv instanceof Error) && pub.getPublicSSH().length === ed25519PublicBlobBytes) return pair;
  }
}
