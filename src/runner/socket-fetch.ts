// fetch over the gateway's Unix socket, for the runner's own calls (model, MCP): no hop through the in-container forwarder.
// node:http, because the runner's bundle targets the sandbox's Debian Node 18 too: its built-in fetch cannot be given a socket, and undici 7 needs Node 20.18.
import http from 'node:http';
import { Readable } from 'node:stream';

/** Statuses whose response has no body (Fetch's null-body statuses). */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** Idle keep-alive connections close before the gateway's own 5 s keep-alive timeout would close them under a request. */
const idleSocketMs = 4_000;

/**
 * A `fetch` that sends every request to the HTTP server on `socketPath`, whatever the URL's host: the URL gives the
 * path and the Host header. Bodies stream as they arrive; an abort ends the request or the body with an AbortError;
 * a connection that fails rejects with TypeError('fetch failed'), as fetch does, the cause attached.
 */
export function socketFetch(socketPath: string, options: { idleSocketMs?: number } = {}): typeof fetch {
  const agent = new http.Agent({ keepAlive: true, timeout: options.idleSocketMs ?? idleSocketMs });
  return async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const { signal } = request;
    const url = new URL(request.url);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    if (signal.aborted) throw abortError(signal);
    const headers: Record<string, string> = { host: url.host };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body !== undefined) headers['content-length'] = String(body.length);

    return new Promise<Response>((resolve, reject) => {
      const sent = http.request({ socketPath, agent, method: request.method, path: `${url.pathname}${url.search}`, headers });
      let received: http.IncomingMessage | undefined;
      const onAbort = (): void => {
        // Before the answer, the request fails; after it, the body does.
        received?.destroy(abortError(signal));
        sent.destroy(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      sent.on('close', () => signal.removeEventListener('abort', onAbort));
      sent.on('error', (error) => reject(signal.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: error })));
      sent.on('response', (answer) => {
        received = answer;
        const status = answer.statusCode ?? 0;
        try {
          const responseHeaders = new Headers();
          const raw = answer.rawHeaders;
          for (let at = 0; at + 1 < raw.length; at += 2) responseHeaders.append(raw[at]!, raw[at + 1]!);
          const empty = request.method === 'HEAD' || nullBodyStatuses.has(status);
          if (empty) answer.resume();
          const stream = empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status, statusText: answer.statusMessage ?? '', headers: responseHeaders }));
        } catch (error) {
          // A status outside 200–599 or a header value that Response or Headers refuses: unusable, as fetch would find it.
          answer.destroy();
          reject(new TypeError('fetch failed', { cause: error }));
        }
      });
      sent.end(body);
    });
  };
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && (reason.name === 'AbortError' || reason.name === 'TimeoutError')) return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

const bySocket = new Map<string, typeof fetch>();

/**
 * The fetch for the runner's calls to the gateway: over its socket when the host named it (CADRE_GATEWAY_SOCKET), else
 * the built-in one (through the forwarder's port in the base URL). One keep-alive pool per socket for the process.
 */
export function gatewayFetch(env: Partial<Record<string, string>>): typeof fetch {
  const socketPath = env.CADRE_GATEWAY_SOCKET;
  if (!socketPath) return fetch;
  let found = bySocket.get(socketPath);
  if (!found) bySocket.set(socketPath, (found = socketFetch(socketPath)));
  return found;
}
