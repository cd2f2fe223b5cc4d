// The gateway's MCP routes: a container lists and calls the host's MCP tools offered to containers, under its JWT,
// within the session's budget, bounded (body, calls at once, time, output), every call and refusal audited.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { ContainerMcpRefusal, type ContainerMcp } from '../mcp/for-containers.js';
import type { Budget } from './budget.js';
import { authenticateContainer } from './container-auth.js';
import { mcpRoutePrefix } from './container-env.js';
import type { Credentials } from './credentials.js';
import type { BoundedAudit } from './refusals.js';
import { readBody } from './request-body.js';
import { scrubText, secretForms, type SecretForms } from './scrub.js';


const maxBodyBytes = 1 << 20;
/** The most text a tool result brings back (about 10,000 tokens): the rest is cut, and the container is told. */
export const maxMcpOutputChars = 40_000;
const maxCallsAtOnce = 4;

const callSchema = z.strictObject({
  server: z.string().min(1).max(100),
  tool: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

export interface McpProxyOptions {
  mcp: ContainerMcp | undefined;
  credentials: Pick<Credentials, 'verifyContainerToken'>;
  container: { cid: string; session: string; jti?: string };
  budget: Budget;
  audit: BoundedAudit;
  /** The gateway's other secrets (the host's model key), removed from replies with the MCP servers' own. */
  hostSecrets: readonly string[];
}

export interface McpProxy {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends the calls in flight (the gateway closes). */
  close(): void;
}

const refusalStatus: Record<string, number> = {
  authentication: 401, 'not-for-containers': 403, 'side-effects': 403, 'unknown-server': 404, 'unknown-tool': 404, 'not-found': 404, 'no-servers': 404,
  method: 405, 'too-large': 413, 'invalid-request': 400, budget: 429, busy: 429, unavailable: 502, failed: 502, timeout: 504,
};

/** Sends `body` as JSON with every secret form removed: a tool's output, a server's error or its tool list may quote one. */
const send = (res: ServerResponse, status: number, body: object, secrets: SecretForms): void => {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(scrubText(JSON.stringify(body), secrets));
};

export function createMcpProxy(options: McpProxyOptions): McpProxy {
  const { mcp, credentials, container, budget, audit } = options;
  const inFlight = new Set<AbortController>();
  const secrets = secretForms([...(mcp?.secrets ?? []), ...options.hostSecrets]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = (req.url ?? '').split('?')[0]?.slice(mcpRoutePrefix.length) ?? '';
    const refuse = (reason: string, message: string, data: Record<string, unknown> = {}): void => {
      req.resume();
      audit.refusal(reason === 'authentication' ? 'gateway.auth-failed' : 'gateway.mcp-refused', reason, { reason, route: route.slice(0, 40), ...data });
      send(res, refusalStatus[reason] ?? 400, { error: { code: reason, message: `cadre gateway: ${message}` } }, secrets);
    };
    const caller = authenticateContainer(credentials, container, req.headers);
    if (!caller.ok) return refuse('authentication', `the container credential was refused (${caller.reason})`, { cause: caller.reason, jti: caller.jti });
    const { jti } = caller;
    if (!mcp) return refuse('no-servers', 'no MCP server is offered to containers (mcp.servers.<name>.containers in the config)', { jti });

    if (route === 'tools') {
      if (req.method !== 'GET') return refuse('method', `${req.method ?? ''} is not allowed on ${mcpRoutePrefix}tools; use GET`, { jti });
      req.resume();
      const tools = await mcp.list();
      audit.record('gateway.mcp-tools', { cid: container.cid, jti, servers: mcp.servers, tools: tools.length });
      send(res, 200, { tools }, secrets);
      return;
    }
    if (route !== 'call') return refuse('not-found', `${mcpRoutePrefix}${route} is not an MCP route (tools, call)`, { jti });
    if (req.method !== 'POST') return refuse('method', `${req.method ?? ''} is not allowed on ${mcpRoutePrefix}call; use POST`, { jti });
    const read = await readBody(req, maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') {
        res.setHeader('connection', 'close');
        refuse('too-large', `the call is larger than ${maxBodyBytes} bytes`, { jti });
      }
      return;
    }
    let parsed: z.infer<typeof callSchema>;
    try {
      const checked = callSchema.safeParse(JSON.parse(read.body.toString('utf8')));
      if (!checked.success) return refuse('invalid-request', `the call must be { server, tool, arguments }: ${checked.error.issues[0]?.message ?? 'invalid'}`, { jti });
      parsed = checked.data;
    } catch {
      return refuse('invalid-request', 'the call is not JSON', { jti });
    }
    const call = { jti, server: parsed.server, tool: parsed.tool, argumentBytes: read.body.length };
    // A result is only worth something to a further model call, which a spent budget refuses: refused here too, before any work on the host.
    const { remaining, used, limit } = budget.snapshot();
    if (remaining < 2) return refuse('budget', `token budget exhausted: used ${used} of ${limit}`, call);
    if (inFlight.size >= maxCallsAtOnce) return refuse('busy', `at most ${maxCallsAtOnce} MCP calls at once per container`, call);

    const controller = new AbortController();
    inFlight.add(controller);
    // The container gave up (its tool timed out, the runner stopped): the call on the host is cancelled too.
    res.once('close', () => controller.abort());
    const started = performance.now();
    try {
      const result = await mcp.call(parsed.server, parsed.tool, parsed.arguments, { signal: controller.signal });
      // Scrubbed before it is cut: a cut through a secret would leave its first part.
      const text = scrubText(result.text, secrets);
      const truncated = text.length > maxMcpOutputChars;
      const output = truncated
        ? `${text.slice(0, maxMcpOutputChars)}\n… [output cut by the gateway: ${text.length - maxMcpOutputChars} more characters; ask for less]`
        : text;
      audit.record('gateway.mcp-call', { cid: container.cid, ...call, status: 200, isError: result.isError, outputChars: text.length, truncated, ms: Math.round(performance.now() - started) });
      send(res, 200, { output, isError: result.isError, truncated }, secrets);
    } catch (error) {
      const ms = Math.round(performance.now() - started);
      if (error instanceof ContainerMcpRefusal) return refuse(error.reason, error.message, { ...call, ms });
      const message = scrubText(error instanceof Error ? error.message : String(error), secrets);
      const reason = /timed out|timeout|took longer/i.test(message) ? 'timeout' : 'failed';
      audit.record('gateway.mcp-call', { cid: container.cid, ...call, status: refusalStatus[reason], error: message, ms });
      send(res, refusalStatus[reason] ?? 502, { error: { code: reason, message: `cadre gateway: ${parsed.server}/${parsed.tool} failed: ${message}` } }, secrets);
    } finally {
      inFlight.delete(controller);
    }
  }

  return {
    handle(req, res) {
      handle(req, res).catch((error: unknown) => {
        audit.record('gateway.error', { cid: container.cid, route: 'mcp', error: error instanceof Error ? error.message : String(error) });
        send(res, 502, { error: { code: 'failed', message: 'cadre gateway: the MCP call failed inside the gateway.' } }, secrets);
      });
    },
    close() {
      for (const controller of inFlight) controller.abort();
    },
  };
}
