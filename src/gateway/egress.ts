// The egress proxy: CONNECT tunnels and absolute-URL HTTP requests, each decided by the allowlist and audited.
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressDecision } from './egress-policy.js';
import type { BoundedAudit } from './refusals.js';

export interface EgressProxy {
  handleConnect(req: IncomingMessage, client: net.Socket, head: Buffer): void;
  /** An absolute-form (`GET http://host/path`) request. */
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every open tunnel. */
  close(): void;
}

const connectTimeoutMs = 30_000;
const droppedHeaders = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

export function createEgressProxy(options: {
  decide: (host: string, port: number) => Promise<EgressDecision>;
  audit: BoundedAudit;
  cid: string;
  /** A tunnel or request that moves no byte for this long is closed. */
  idleTimeoutMs: number;
}): EgressProxy {
  const { decide, audit, cid, idleTimeoutMs } = options;
  const tunnels = new Set<Duplex>();

  const decideAndAudit = async (method: string, host: string, port: number): Promise<EgressDecision> => {
    const decision = await decide(host, port);
    const entry = { method, host: host.slice(0, 255), port, allowed: decision.allowed, rule: decision.rule };
    if (decision.allowed) audit.record('egress.decision', { cid, ...entry, address: decision.address });
    else audit.refusal('egress.decision', `egress:${decision.rule}`, { ...entry, reason: decision.reason });
    return decision;
  };

  return {
    handleConnect(req, client, head) {
      tunnels.add(client);
      client.on('close', () => tunnels.delete(client));
      client.on('error', () => client.destroy());
      client.setTimeout(idleTimeoutMs, () => client.destroy());
      const target = parseAuthority(req.url ?? '');
      void decideAndAudit('CONNECT', target.host, target.port).then((decision) => {
        if (client.destroyed) return;
        if (!decision.allowed) {
          refuseRaw(client, 403, refusalText(decision));
          return;
        }
        const upstream = net.connect({ host: decision.address, port: decision.port, family: decision.family });
        tunnels.add(upstream);
        upstream.setTimeout(connectTimeoutMs, () => upstream.destroy(new Error('connect timeout')));
        upstream.once('connect', () => {
          upstream.setTimeout(0);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', (error) => {
          if (upstream.connecting || upstream.pending) refuseRaw(client, 502, `cadre gateway: could not reach ${decision.host}:${decision.port} (${error.message})\n`);
          else client.destroy();
        });
        upstream.on('close', () => {
          tunnels.delete(upstream);
          client.end();
        });
        client.on('close', () => upstream.destroy());
      });
    },

    handleRequest(req, res) {
      let url: URL | undefined;
      try {
        url = new URL(req.url ?? '');
      } catch {
        url = undefined;
      }
      if (url === undefined || url.protocol !== 'http:') {
        req.resume();
        res.writeHead(400, { 'content-type': 'text/plain' }).end('cadre gateway: the proxy takes http:// URLs and CONNECT for https.\n');
        return;
      }
      const target = url;
      const port = target.port === '' ? 80 : Number(target.port);
      void decideAndAudit(req.method ?? 'GET', target.hostname, port).then((decision) => {
        if (!decision.allowed) {
          req.resume();
          res.writeHead(403, { 'content-type': 'text/plain', 'x-cadre-egress': `refused; rule=${decision.rule}` }).end(refusalText(decision));
          return;
        }
        const upstream = http.request({
          host: decision.address,
          family: decision.family,
          port: decision.port,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers: { ...forwardedHeaders(req.headers), host: target.host },
          agent: false,
        });
        upstream.setTimeout(idleTimeoutMs, () => upstream.destroy(new Error('upstream timeout')));
        upstream.on('response', (response) => {
          res.writeHead(response.statusCode ?? 502, forwardedHeaders(response.headers));
          response.pipe(res);
        });
        upstream.on('error', (error) => {
          if (res.headersSent) res.destroy();
          else res.writeHead(502, { 'content-type': 'text/plain' }).end(`cadre gateway: could not reach ${decision.host} (${error.message})\n`);
        });
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      });
    },

    close() {
      for (const socket of tunnels) socket.destroy();
      tunnels.clear();
    },
  };
}

/** Splits a CONNECT target `host:port`; a malformed one yields a host the policy refuses. */
function parseAuthority(authority: string): { host: string; port: number } {
  const colon = authority.lastIndexOf(':');
  const portText = colon < 0 ? '' : authority.slice(colon + 1);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : -1;
  return { host: colon < 0 ? authority : authority.slice(0, colon), port };
}

function refusalText(decision: EgressDecision): string {
  return decision.allowed ? '' : `cadre gateway: egress to ${decision.host.slice(0, 255)}:${decision.port} refused (${decision.rule}): ${decision.reason}\n`;
}

function refuseRaw(client: Duplex, status: 403 | 502, text: string): void {
  const reason = status === 403 ? 'Forbidden' : 'Bad Gateway';
  const body = Buffer.from(text);
  client.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${text}`);
}

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !droppedHeaders.has(name)) out[name] = value;
  }
  return out;
}
