// A registry on 127.0.0.1 speaking npm's bulk advisory endpoint (POST /-/npm/v1/security/advisories/bulk, gzip-compressed
// `{ name: [versions] }` in, `{ name: [{ id, url, title, severity, vulnerable_versions, cwe, cvss }] }` out), answering
// from the advisories it is given, or misbehaving on request: slow, garbage, an endless answer. It counts requests.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import semver from 'semver';
import type { Advisory } from '../../src/capabilities/analysis/security/snapshot.js';

export type AuditMode = 'answer' | 'slow' | 'garbage' | 'huge' | 'unauthorised';
export type AuditRequest = { authorization: string | undefined; body: Record<string, string[]> };

export type AuditRegistry = {
  url: string;
  host: string;
  requests: AuditRequest[];
  mode: AuditMode;
  close: () => Promise<void>;
};

const labels = { Critical: 'critical', High: 'high', Medium: 'moderate', Low: 'low' } as const;

/** The registry's record of an advisory: GitHub's advisories carry their GHSA page as `url` and a numeric id. */
function bulkRecord(advisory: Advisory, index: number): Record<string, unknown> {
  return {
    id: 1_100_000 + index, url: `https://github.com/advisories/${advisory.id}`, title: advisory.title, severity: labels[advisory.severity],
    vulnerable_versions: advisory.vulnerable, cwe: [], cvss: { score: 0, vectorString: null },
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startAuditRegistry(advisories: readonly Advisory[]): Promise<AuditRegistry> {
  const ghsa = advisories.filter((advisory) => advisory.id.startsWith('GHSA-'));
  const state: { mode: AuditMode } = { mode: 'answer' };
  const requests: AuditRequest[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/-/npm/v1/security/advisories/bulk') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse((await readBody(request)).toString('utf8')) as Record<string, string[]>;
      requests.push({ authorization: request.headers.authorization, body });
      if (state.mode === 'slow') return; // never answers
      if (state.mode === 'unauthorised') {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorised"}');
        return;
      }
      if (state.mode === 'garbage') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"express": [{"id": 1, "vulnerable_versions": "<4', 'utf8');
        return;
      }
      if (state.mode === 'huge') {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const more = (): void => {
          while (sent < 50 && !response.destroyed) {
            sent += 1;
            if (!response.write(chunk)) {
              response.once('drain', more);
              return;
            }
          }
          response.end();
        };
        more();
        return;
      }
      const answer: Record<string, unknown[]> = {};
      for (const [name, versions] of Object.entries(body)) {
        const affecting = ghsa.filter((advisory) => advisory.packageName === name && versions.some((version) => semver.satisfies(version, advisory.vulnerable, { loose: true })));
        if (affecting.length > 0) answer[name] = affecting.map((advisory) => bulkRecord(advisory, ghsa.indexOf(advisory)));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    })();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`, host: `127.0.0.1:${port}`, requests,
    get mode() { return state.mode; },
    set mode(mode: AuditMode) { state.mode = mode; },
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }),
  };
}
