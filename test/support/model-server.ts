// A local model server on 127.0.0.1 speaking Anthropic Messages and OpenAI chat completions, replaying scripted turns.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicError, anthropicMessage, anthropicStream, type Chunk } from './model-server-anthropic.js';
import { openaiCompletion, openaiError, openaiStream } from './model-server-openai.js';
import { isFailure, loadModelScript, modelScriptSchema, type ModelFailure, type ModelScript, type ModelTurn } from './model-server-script.js';

export type WireFormat = 'anthropic' | 'openai';

export interface RecordedRequest {
  format: WireFormat;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body the client sent. */
  body: Record<string, unknown>;
}

export interface ModelServer {
  /** Base origin, e.g. http://127.0.0.1:PORT. Anthropic clients use `${url}/v1`, OpenAI clients `${url}/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Serve this failure on the next request, before the script's next turn. */
  failNext(failure: ModelFailure): void;
  /** Turns of the script not served yet. */
  remainingTurns(): number;
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /** A script, or a fixture name under test/fixtures/models (or an absolute .json path). */
  script: ModelScript | string;
  /** When set, requests carrying another key (x-api-key or Bearer) get a 401. */
  requiredApiKey?: string;
  /** Served at GET …/models, in the shape of the asking client's provider (404 when absent). */
  models?: { id: string; contextWindow?: number }[];
  /** A model that acts on what it is sent (as a real one does): its turn, when it gives one, is served instead of the script's next. */
  respond?: (request: RecordedRequest) => ModelTurn | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function formatOf(path: string): WireFormat | null {
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'openai';
  return null;
}

/**
 * Anthropic's POST /v1/messages/count_tokens, which the gateway asks near the budget's limit: a tokenizer of 4 bytes a
 * token over the system prompt, messages and tools (not recorded among the requests: it serves no turn).
 */
async function countTokens(request: IncomingMessage, response: ServerResponse, requiredApiKey: string | undefined): Promise<void> {
  const body = await readJson(request);
  if (requiredApiKey !== undefined && presentedKey(request.headers) !== requiredApiKey) {
    sendFailure(response, 'anthropic', { status: 401 });
    return;
  }
  const counted = JSON.stringify([body.system ?? '', body.messages ?? [], body.tools ?? []]);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ input_tokens: Math.ceil(Buffer.byteLength(counted, 'utf8') / 4) }));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function presentedKey(headers: IncomingMessage['headers']): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  return headers.authorization?.replace(/^Bearer\s+/i, '');
}

function sendFailure(response: ServerResponse, format: WireFormat, failure: ModelFailure): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (failure.retryAfter !== undefined) headers['retry-after'] = failure.retryAfter;
  response.writeHead(failure.status, headers);
  response.end(JSON.stringify(format === 'anthropic' ? anthropicError(failure) : openaiError(failure)));
}

async function sendStream(response: ServerResponse, chunks: Chunk[], delayMs: number, stallAfter?: number): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.flushHeaders();
  for (const [index, chunk] of chunks.entries()) {
    if (response.destroyed) return;
    if (index === stallAfter) {
      await new Promise((resolve) => response.once('close', resolve));
      return;
    }
    const data = typeof chunk.data === 'string' ? chunk.data : JSON.stringify(chunk.data);
    response.write(`${chunk.event ? `event: ${chunk.event}\n` : ''}data: ${data}\n\n`);
    if (delayMs > 0) await sleep(delayMs);
  }
  response.end();
}

/** The model list: Anthropic's shape to a client that sends anthropic-version, else OpenAI's with vLLM's max_model_len. */
function sendModelList(response: ServerResponse, headers: IncomingMessage['headers'], models: NonNullable<ModelServerOptions['models']>): void {
  const body = headers['anthropic-version']
    ? { data: models.map((model) => ({ type: 'model', id: model.id, display_name: model.id, created_at: '2025-01-01T00:00:00Z' })), has_more: false, first_id: models[0]?.id ?? null, last_id: models.at(-1)?.id ?? null }
    : { object: 'list', data: models.map((model) => ({ id: model.id, object: 'model', created: 1_700_000_000, owned_by: 'test', ...(model.contextWindow ? { max_model_len: model.contextWindow } : {}) })) };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the server; every request consumes the next scripted turn, whichever wire format it uses. */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const script = typeof options.script === 'string' ? loadModelScript(options.script) : modelScriptSchema.parse(options.script);
  const queue: ModelTurn[] = [...script.turns];
  const injected: ModelFailure[] = [];
  const requests: RecordedRequest[] = [];
  let served = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const format = formatOf(path);
    if (request.method === 'GET' && path.endsWith('/models') && options.models) {
      sendModelList(response, request.headers, options.models);
      return;
    }
    if (request.method === 'POST' && path.endsWith('/messages/count_tokens')) {
      await countTokens(request, response, options.requiredApiKey);
      return;
    }
    if (request.method !== 'POST' || !format) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${path}` } }));
      return;
    }
    const body = await readJson(request);
    requests.push({ format, path, headers: request.headers, body });
    if (options.requiredApiKey !== undefined && presentedKey(request.headers) !== options.requiredApiKey) {
      sendFailure(response, format, { status: 401 });
      return;
    }
    const turn: ModelTurn | undefined = injected.length ? { error: injected.shift() as ModelFailure } : (options.respond?.(requests.at(-1)!) ?? queue.shift());
    served += 1;
    if (!turn) {
      sendFailure(response, format, { status: 500, message: `model server: the script has no turn ${served}` });
      return;
    }
    if (isFailure(turn)) {
      sendFailure(response, format, turn.error);
      return;
    }
    if (turn.delayMs) await sleep(turn.delayMs);
    const model = typeof body.model === 'string' ? body.model : 'test-model';
    if (body.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(format === 'anthropic' ? anthropicMessage(turn, model, served) : openaiCompletion(turn, model, served)));
      return;
    }
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunks = format === 'anthropic' ? anthropicStream(turn, model, served) : openaiStream(turn, model, served, includeUsage);
    await sendStream(response, chunks, turn.chunkDelayMs ?? 0, turn.stallAfterChunks);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `model server bug: ${String(error)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (failure) => injected.push(failure),
    remainingTurns: () => queue.length,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
