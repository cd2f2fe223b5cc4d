// An Anthropic-format upstream with a tokenizer of its own (bytes per token), which keeps the bill of what it answered.
import { startLocalServer } from './harness.js';

export interface CountingUpstreamOptions {
  /** UTF-8 bytes of the request's messages, system prompt and tools per input token: 2 counts far more than o200k, 12 far less. */
  bytesPerToken: number;
  /** Output tokens each answer generates (one per word), at most the call's max_tokens. */
  outputTokens: number;
  /** How usage is told: honestly, or not at all. */
  report: 'usage' | 'nothing';
  /** Whether POST /v1/messages/count_tokens answers (with the same count it bills), or is a 404. */
  countEndpoint: boolean;
}

export interface CountingUpstream {
  url: string;
  /** What each answered call was billed (input + output), in order. */
  billed: Array<{ input: number; output: number }>;
  /** count_tokens requests answered. */
  counts: number;
  close(): Promise<void>;
}

/** Input tokens of an Anthropic request, counted as a provider with `bytesPerToken` bytes per token would. */
export function inputTokensOf(body: Record<string, unknown>, bytesPerToken: number): number {
  const text = JSON.stringify([body.system ?? '', body.messages ?? [], body.tools ?? []]);
  return Math.ceil(Buffer.byteLength(text, 'utf8') / bytesPerToken);
}

/** Anthropic's count_tokens answer for `path` and `body` (4 bytes a token), or undefined when `path` is another endpoint. */
export function countTokensAnswer(path: string | undefined, body: string): string | undefined {
  if (path !== '/v1/messages/count_tokens') return undefined;
  return JSON.stringify({ input_tokens: inputTokensOf(JSON.parse(body) as Record<string, unknown>, 4) });
}

export async function startCountingUpstream(options: CountingUpstreamOptions): Promise<CountingUpstream> {
  const billed: CountingUpstream['billed'] = [];
  let counts = 0;
  const inputOf = (body: Record<string, unknown>): number => inputTokensOf(body, options.bytesPerToken);
  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      if (req.url === '/v1/messages/count_tokens') {
        if (!options.countEndpoint) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'Not found' } }));
          return;
        }
        counts += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: inputOf(body) }));
        return;
      }
      const input = inputOf(body);
      const output = Math.min(Number(body.max_tokens), options.outputTokens);
      billed.push({ input, output });
      const usage = options.report === 'usage' ? { usage: { input_tokens: input, output_tokens: output } } : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'word '.repeat(output) }], ...usage }));
    });
  });
  return {
    url: server.url,
    billed,
    get counts() {
      return counts;
    },
    close: server.close,
  };
}

/** The sum of what an upstream billed. */
export function billedTotal(upstream: Pick<CountingUpstream, 'billed'>): number {
  return upstream.billed.reduce((total, call) => total + call.input + call.output, 0);
}
