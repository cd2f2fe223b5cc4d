// A scripted Anthropic-format upstream that lies: usage far above the call, streams cut before their end, no usage, no output cap.
import type { ServerResponse } from 'node:http';
import { startLocalServer } from './harness.js';

export type Lie =
  /** A whole JSON answer reporting 90,000 input and 79,075 output tokens, whatever was asked. */
  | 'usage-above-reservation'
  /** A stream that sends `words` words of text and closes before message_delta and message_stop. */
  | 'early-close'
  /** A stream that ends properly but never reports usage. */
  | 'missing-usage'
  /** A stream that ignores max_tokens and keeps sending text, with honest-looking usage at its end. */
  | 'ignores-output-cap'
  /** An honest stream that takes `delayMs` between its words: for clients that stop reading. */
  | 'slow-honest'
  /** Reads the whole request, then drops the connection without a word. */
  | 'drop-after-request';

export interface LyingUpstream {
  url: string;
  /** Requests received, with the max_tokens each carried. */
  seen: Array<{ maxTokens: number }>;
  close(): Promise<void>;
}

const sse = (res: ServerResponse, type: string, data: object): boolean => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

export async function startLyingUpstream(lie: Lie, options: { words?: number; delayMs?: number } = {}): Promise<LyingUpstream> {
  const seen: LyingUpstream['seen'] = [];
  const words = options.words ?? 18_000;
  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { max_tokens: number };
      seen.push({ maxTokens: body.max_tokens });
      if (lie === 'drop-after-request') {
        res.socket?.destroy();
        return;
      }
      if (lie === 'usage-above-reservation') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 90_000, output_tokens: 79_075 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, 'message_start', { message: { id: 'msg', type: 'message', role: 'assistant', content: [], usage: lie === 'missing-usage' ? undefined : { input_tokens: 200, output_tokens: 1 } } });
      sse(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      let sent = 0;
      const total = lie === 'ignores-output-cap' ? words * 20 : words;
      const next = (): void => {
        while (sent < total && !res.destroyed) {
          sent += 50;
          const more = sse(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' hello'.repeat(50) } });
          if (lie === 'slow-honest') {
            setTimeout(next, options.delayMs ?? 20);
            return;
          }
          if (!more) {
            res.once('drain', next);
            return;
          }
        }
        if (res.destroyed) return;
        if (lie === 'early-close') {
          res.destroy();
          return;
        }
        sse(res, 'content_block_stop', { index: 0 });
        sse(res, 'message_delta', { delta: { stop_reason: 'end_turn' }, ...(lie === 'missing-usage' ? {} : { usage: { output_tokens: sent } }) });
        sse(res, 'message_stop', {});
        res.end();
      };
      next();
    });
  });
  return { url: server.url, seen, close: server.close };
}
