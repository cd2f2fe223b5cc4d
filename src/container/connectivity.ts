// /test-connectivity: whether a repository answers, checked in stages so DNS, connection, TLS and authentication failures are told apart.
import { lookup } from 'node:dns/promises';
import { connect as connectTcp, isIP } from 'node:net';
import { connect as connectTls } from 'node:tls';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';

export type ConnectivityStage = 'url' | 'dns' | 'connection' | 'tls' | 'authentication' | 'repository';

export type ConnectivityReport =
  | { ok: true; url: string; address: string; refs: number; headBranch: string | null; elapsedMs: number }
  | { ok: false; url: string; stage: ConnectivityStage; message: string; remedy: string; elapsedMs: number };

class StageError extends Error {
  constructor(readonly stage: ConnectivityStage, message: string, readonly remedy: string) {
    super(message);
  }
}

function reason(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function parseRepoUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new StageError('url', `"${text}" is not a URL`, 'give an http(s) URL like https://host/owner/repo.git');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StageError('url', `${url.protocol} URLs are not supported; cadre clones over smart HTTP`, 'use the https:// URL of the repository');
  }
  return url;
}

function open(url: URL, address: string, timeoutMs: number): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: address, port, timeout: timeoutMs });
    socket.once('connect', () => {
      if (url.protocol !== 'https:') return void socket.end(resolve);
      const secure = connectTls({ socket, ...(isIP(url.hostname) ? {} : { servername: url.hostname }), timeout: timeoutMs });
      secure.once('secureConnect', () => secure.end(resolve));
      secure.once('error', (error) => reject(new StageError('tls', `TLS with ${url.host} failed: ${reason(error)}`, 'check the server certificate, the system clock, and any TLS-intercepting proxy (NODE_EXTRA_CA_CERTS)')));
      secure.once('timeout', () => secure.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    });
    socket.once('timeout', () => socket.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    socket.once('error', (error) => {
      if (error instanceof StageError) return reject(error);
      reject(new StageError('connection', `Cannot connect to ${url.hostname}:${port} (${address}): ${reason(error)}`, 'check that the host is up and that no firewall or proxy blocks the port'));
    });
  });
}

async function discover(url: URL, headers: Record<string, string>): Promise<{ refs: number; headBranch: string | null }> {
  try {
    const info = await git.getRemoteInfo({ http, url: url.href, headers });
    const head = (info as { HEAD?: string }).HEAD;
    return { refs: Object.keys(info.refs ?? {}).length, headBranch: head?.replace(/^refs\/heads\//, '') ?? null };
  } catch (error) {
    const status = (error as { data?: { statusCode?: number } }).data?.statusCode;
    if (status === 401 || status === 403) {
      throw new StageError('authentication', `${url.host} refused access (HTTP ${status})`, 'check the repository token or credentials, and that they may read this repository');
    }
    if (status === 404) throw new StageError('repository', `No repository at ${url.href} (HTTP 404)`, 'check the owner and repository name in the URL');
    throw new StageError('repository', `${url.href} did not answer as a git repository: ${reason(error)}`, 'check that the URL is the repository\'s clone URL');
  }
}

/** Checks `repoUrl` stage by stage: URL, DNS, TCP connection, TLS (https), then git smart-HTTP discovery. */
export async function testConnectivity(options: { url: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<ConnectivityReport> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  try {
    const url = parseRepoUrl(options.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const address = await lookup(host).then(
      (found) => found.address,
      (error: unknown) => {
        throw new StageError('dns', `Cannot resolve ${host}: ${reason(error)}`, 'check the host name in the URL and the DNS settings of this machine');
      },
    );
    await open(url, address, timeoutMs);
    const found = await discover(url, options.headers ?? {});
    return { ok: true, url: options.url, address, ...found, elapsedMs: Date.now() - started };
  } catch (error) {
    if (!(error instanceof StageError)) throw error;
    return { ok: false, url: options.url, stage: error.stage, message: error.message, remedy: error.remedy, elapsedMs: Date.now() - started };
  }
}
