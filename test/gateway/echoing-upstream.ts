// A recording upstream that quotes the key the gateway injected, in Anthropic's or OpenAI's wire format: in error and
// success bodies, in a stream with the key split across two writes, in response headers, raw and in encoded forms.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { startLocalServer } from './harness.js';

/** Where the key comes back; the test picks it with the request's last message (`echo:<place>`). `gzip`: a 200 compressed though asked for identity. */
export type EchoPlace = '400' | '429' | '200' | 'stream' | 'header' | 'encoded' | 'gzip';
export const echoPlaces: readonly EchoPlace[] = ['400', '429', '200', 'stream', 'header', 'encoded'];

export interface EchoingUpstream {
  url: string;
  /** The key each request carried, as the upstream received it. */
  keys: string[];
  close(): Promise<void>;
}

/** The key as an upstream received it: `x-api-key`, or the token of `Authorization: Bearer`. */
const keyOf = (headers: IncomingHttpHeaders): string => (typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : (headers.authorization ?? '').replace(/^Bearer /, ''));

/** The forms proxies and custom servers quote a key in: raw, as sent, URL-encoded, in Basic auth, hex. */
export const quoted = (key: string): string =>
  `key ${key}; header Authorization: Bearer ${key}; url ?api_key=${encodeURIComponent(key)}; basic Basic ${Buffer.from(`user:${key}`).toString('base64')}; hex ${Buffer.from(key).toString('hex')}`;

/**
 * The forms of `key` found in `text`: as it is, URL-encoded, with escaped slashes, as hex, and inside any base64 run
 * (decoded at each alignment) holding the key less its first and last 3 characters.
 */
export function leaks(text: string, key: string): string[] {
  const found: string[] = [];
  const hex = Buffer.from(key).toString('hex');
  const forms: Array<[string, string]> = [['raw', key], ['url', encodeURIComponent(key)], ['json', key.replace(/\//g, '\\/')], ['hex', hex], ['HEX', hex.toUpperCase()]];
  for (const [name, form] of forms) if (text.includes(form)) found.push(name);
  const middle = key.slice(3, -3);
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (let offset = 0; offset < 4; offset += 1) {
      if (Buffer.from(run.slice(offset), 'base64').toString('latin1').includes(middle)) found.push(`base64 ${run}`);
    }
  }
  return found;
}

export async function startEchoingUpstream(kind: 'anthropic' | 'openai'): Promise<EchoingUpstream> {
  const keys: string[] = [];
  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = keyOf(req.headers);
      keys.push(key);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: Array<{ content: string }> };
      const place = (body.messages.at(-1)?.content ?? '').replace(/^echo:/, '') as EchoPlace;
      answer(kind, place, key, res);
    });
  });
  return { url: server.url, keys, close: server.close };
}

function answer(kind: 'anthropic' | 'openai', place: EchoPlace, key: string, res: ServerResponse): void {
  const json = (status: number, value: unknown, headers: Record<string, string> = {}, escapeSlashes = false): void => {
    const text = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    // As PHP and some proxies write JSON: every slash escaped.
    res.end(escapeSlashes ? text.replace(/\//g, '\\/') : text);
  };
  const error = (type: string, message: string): unknown => (kind === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, param: null, code: type } });
  const message = (text: string): unknown => kind === 'anthropic'
    ? { id: 'msg_echo', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }
    : { id: 'chatcmpl-echo', object: 'chat.completion', created: 1_700_000_000, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };

  if (place === '400') return json(400, error('invalid_request_error', `the request sent with ${quoted(key)} is invalid`));
  if (place === '429') return json(429, error('rate_limit_error', `rate limited: ${quoted(key)}`), { 'retry-after': '0' });
  if (place === '200') return json(200, message(`you called with ${quoted(key)}`));
  if (place === 'gzip') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(gzipSync(JSON.stringify(message(`you called with ${quoted(key)}`))));
    return;
  }
  if (place === 'encoded') return json(400, error('invalid_request_error', `rejected ${quoted(key)}`), {}, true);
  if (place === 'header') {
    return json(200, message('ok'), {
      'x-echo-key': key, 'x-echo-authorization': `Bearer ${key}`, 'x-echo-basic': `Basic ${Buffer.from(`proxy:${key}`).toString('base64')}`,
      'x-echo-url': `/v1?key=${encodeURIComponent(key)}`,
    });
  }
  // The stream: the key split in the middle, its two halves written 60 ms apart.
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = kind === 'anthropic'
    ? (text: string): string => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`
    : (text: string): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
  const opening = kind === 'anthropic'
    ? `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })}\n\nevent: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`
    : event('');
  const closing = kind === 'anthropic'
    ? `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } })}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`
    : `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\ndata: [DONE]\n\n`;
  const whole = `${opening}${event('before ')}${event(`the key is ${key} and`)}${event(' after')}${closing}`;
  const cut = whole.indexOf(key) + Math.floor(key.length / 2);
  res.write(whole.slice(0, cut));
  setTimeout(() => res.end(whole.slice(cut)), 60);
}
