// Metering a model call: its output cap before, what the upstream streamed and reported during, and what it is charged after.
import type { Reservation, TokenUsage } from './budget.js';
import type { MeteredEndpoint, ProviderKind } from './providers.js';
import { estimateTextTokens, type TokenCounter } from './token-estimate.js';

/** Tokens counted for an inline image or file, whose base64 text says nothing about its cost. */
export const attachmentTokens = 1_600;

export interface MeteredRequest {
  body: Record<string, unknown>;
  /** The output cap the client asked for (or the default), times the number of choices. */
  maxOutputTokens: number;
  model: string | undefined;
  stream: boolean;
  /** Writes the reserved output cap into the body, so the upstream cannot be asked for more than was reserved. */
  withOutputCap(reserved: number): Record<string, unknown>;
  /** The bytes to forward with the reserved output cap: the container's own when they say what was checked (see OriginalBody). */
  bytesWithOutputCap(reserved: number, original: OriginalBody): Buffer;
}

/** The request as the container sent it. */
export interface OriginalBody {
  bytes: Buffer;
  /**
   * True when every JSON parser reads `bytes` as the gateway did: valid UTF-8 and no key repeated in an object (a parser
   * that keeps the first of two values would see a field the gateway never checked). Otherwise the body is re-serialised.
   */
  readAlike: boolean;
}

/**
 * Input tokens a provider adds to what a request's texts say, rounded up from Anthropic's published figures: the tool-use
 * system prompt (under 350 tokens) once, and each schema-defined tool's built-in definition (bash, text editor, computer
 * use, memory: up to about 750 each). Role markers and per-message framing (a few tokens) are covered by the field names
 * ("role", "content"…) the bound already counts at one token per byte.
 */
export function framingTokens(body: Record<string, unknown>): number {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return 0;
  let tokens = 512;
  for (const tool of body.tools as unknown[]) {
    const type = asRecord(tool).type;
    tokens += typeof type === 'string' && type !== 'custom' && type !== 'function' ? 1_024 : 16;
  }
  return tokens;
}

/** Reads a call's output cap (adding `defaultMaxOutput` when the client set none) and makes streamed chat calls ask for usage. */
export function meterRequest(input: { kind: ProviderKind; endpoint: MeteredEndpoint; body: Record<string, unknown>; defaultMaxOutput: number }): MeteredRequest {
  const { kind, endpoint, defaultMaxOutput } = input;
  const body = { ...input.body };
  const capField = endpoint === 'messages' ? 'max_tokens' : endpoint === 'responses' ? 'max_output_tokens' : chatCapField(kind, body);
  const cap = positiveInteger(body[capField]) ?? defaultMaxOutput;
  const choices = endpoint === 'chat' ? Math.min(positiveInteger(body.n) ?? 1, 128) : 1;
  const stream = body.stream === true;
  const askUsage = endpoint === 'chat' && stream && asRecord(body.stream_options).include_usage !== true;
  if (askUsage) body.stream_options = { ...asRecord(body.stream_options), include_usage: true };
  const capFor = (reserved: number): number => Math.max(1, Math.floor(reserved / choices));
  const withOutputCap = (reserved: number): Record<string, unknown> => ({ ...body, [capField]: capFor(reserved) });
  return {
    body,
    maxOutputTokens: cap * choices,
    model: typeof body.model === 'string' ? body.model : undefined,
    stream,
    withOutputCap,
    bytesWithOutputCap(reserved, original) {
      // Serialising a large body again costs more than the rest of the call: the container's bytes go as they are when
      // they already carry the cap, or with the cap added at the end of the top-level object when they set none.
      const present = input.body[capField];
      if (original.readAlike && !askUsage && Object.keys(input.body).length > 0) {
        if (present === capFor(reserved)) return original.bytes;
        if (present === undefined) return withFieldAdded(original.bytes, `"${capField}":${capFor(reserved)}`);
      }
      return Buffer.from(JSON.stringify(withOutputCap(reserved)));
    },
  };
}

/** `bytes` (a JSON object with at least one member) with `member` added as its last member. */
function withFieldAdded(bytes: Buffer, member: string): Buffer {
  let close = bytes.length - 1;
  while (bytes[close] !== 0x7d) close -= 1;
  return Buffer.concat([bytes.subarray(0, close), Buffer.from(`,${member}`), bytes.subarray(close)]);
}

function chatCapField(kind: ProviderKind, body: Record<string, unknown>): string {
  if (body.max_completion_tokens !== undefined) return 'max_completion_tokens';
  if (body.max_tokens !== undefined) return 'max_tokens';
  return kind === 'openai' ? 'max_completion_tokens' : 'max_tokens';
}

/** What an upstream said about a call: its reported usage, the output it streamed (counted as it passed), whether it finished. */
export interface UsageTracker {
  observe(message: unknown): void;
  /** One stream event's data, as the SSE reader gives it (JSON, or anything an upstream sends). */
  observeData(data: string): void;
  /** The stream's end marker (`data: [DONE]`), or a whole JSON body read. */
  done(): void;
  usage(): TokenUsage | undefined;
  /** The output streamed so far, estimated with the tokenizer. */
  streamedOutput(): number;
  /** At least `streamedOutput()`, without the tokenizer: what was counted plus the UTF-8 bytes streamed since. */
  streamedAtMost(): number;
  /** True once the upstream sent its last event (message_stop, [DONE], response.completed) or a whole JSON body. */
  finished(): boolean;
}

const finalResponseTypes = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Streamed text waiting to be counted is counted once it reaches this size, whatever is asked. */
const maxUncountedBytes = 64 << 10;

/**
 * Reads usage as the events pass. The text of stream deltas (a token or a few each) is counted in batches, when the
 * figure is needed or the batch is large: one tokenizer call per delta cost more than the rest of the relay.
 */
export function createUsageTracker(countTokens: TokenCounter): UsageTracker {
  let input: number | undefined;
  let output: number | undefined;
  let streamed = 0;
  let uncounted: string[] = [];
  let uncountedBytes = 0;
  let finished = false;
  const countStreamed = (): number => {
    if (uncounted.length > 0) {
      streamed += estimateTextTokens(uncounted.join(''), countTokens);
      uncounted = [];
      uncountedBytes = 0;
    }
    return streamed;
  };
  const streamedText = (text: string): void => {
    uncounted.push(text);
    uncountedBytes += Buffer.byteLength(text, 'utf8');
    if (uncountedBytes > maxUncountedBytes) countStreamed();
  };
  const tracker: UsageTracker = {
    observeData(data) {
      // Most of a stream is text deltas: read in the one form Anthropic sends them, they need no JSON.parse each.
      const text = anthropicTextDelta(data);
      if (text !== undefined) {
        if (text !== '') streamedText(text);
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(data);
      } catch {
        // Not JSON: nothing to meter in it.
        return;
      }
      tracker.observe(message);
    },
    observe(message) {
      const record = asRecord(message);
      const type = record.type;
      if (type === 'message_stop' || (typeof type === 'string' && finalResponseTypes.has(type))) finished = true;
      const text = deltaText(record);
      if (text !== '') streamedText(text);
      const usage = asRecord(
        type === 'message_start' ? asRecord(record.message).usage
          : typeof type === 'string' && type.startsWith('response.') ? asRecord(record.response).usage
            : record.usage,
      );
      const reportedInput = count(usage.input_tokens ?? usage.prompt_tokens);
      const reportedOutput = count(usage.output_tokens ?? usage.completion_tokens);
      // Anthropic reports cache reads and writes beside input_tokens; OpenAI counts them inside prompt_tokens.
      const cached = count(usage.cache_creation_input_tokens) + count(usage.cache_read_input_tokens);
      if (usage.input_tokens !== undefined || usage.prompt_tokens !== undefined) input = Math.max(input ?? 0, reportedInput + cached);
      if (usage.output_tokens !== undefined || usage.completion_tokens !== undefined) output = Math.max(output ?? 0, reportedOutput);
    },
    done: () => {
      finished = true;
    },
    usage: () => (input === undefined && output === undefined ? undefined : { input: input ?? 0, output: output ?? 0 }),
    streamedOutput: countStreamed,
    streamedAtMost: () => streamed + uncountedBytes,
    finished: () => finished,
  };
  return tracker;
}

const textDeltaHead = '{"type":"content_block_delta","index":';
const textDeltaMiddle = ',"delta":{"type":"text_delta","text":"';
const textDeltaTail = '"}}';

/**
 * The text of an Anthropic text delta written exactly as the API writes it
 * (`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"…"}}`), read without parsing the
 * event; undefined for anything else, which is parsed as JSON. Whatever this accepts, JSON.parse reads as that text delta:
 * the fixed parts leave no room for another key, a repeated one or another value, and the text must be a whole JSON
 * string (a quote it does not escape, a bad escape or a raw control character sends the event to JSON.parse).
 */
export function anthropicTextDelta(data: string): string | undefined {
  if (!data.startsWith(textDeltaHead) || !data.endsWith(textDeltaTail)) return undefined;
  // The index: a JSON integer without sign or leading zero.
  let at = textDeltaHead.length;
  const first = data.charCodeAt(at);
  if (first === 0x30) at += 1;
  else if (first >= 0x31 && first <= 0x39) {
    do at += 1;
    while (isDigit(data.charCodeAt(at)));
  } else return undefined;
  if (!data.startsWith(textDeltaMiddle, at)) return undefined;
  const from = at + textDeltaMiddle.length;
  const to = data.length - textDeltaTail.length;
  if (from > to) return undefined;
  const body = data.slice(from, to);
  if (!needsEscapes(body)) return body;
  try {
    const text: unknown = JSON.parse(`"${body}"`);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** True when `text` holds a character a JSON string holds only escaped (or that ends it): without one, it is its own JSON string body. */
function needsEscapes(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c || code < 0x20) return true;
  }
  return false;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** The generated text a stream event carries: Anthropic deltas, chat choices' deltas, Responses deltas. */
function deltaText(record: Record<string, unknown>): string {
  if (record.type === 'content_block_delta') {
    const delta = asRecord(record.delta);
    return textOf(delta.text) + textOf(delta.partial_json) + textOf(delta.thinking);
  }
  if (typeof record.type === 'string' && record.type.startsWith('response.') && record.type.endsWith('.delta')) {
    return typeof record.delta === 'string' ? record.delta : '';
  }
  if (!Array.isArray(record.choices)) return '';
  const parts: string[] = [];
  for (const choice of record.choices) {
    const delta = asRecord(asRecord(choice).delta);
    for (const text of [delta.content, delta.reasoning_content, delta.refusal]) if (typeof text === 'string') parts.push(text);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        const args = asRecord(asRecord(call).function).arguments;
        if (typeof args === 'string') parts.push(args);
      }
    }
  }
  return parts.join('');
}

/**
 * How a call ended: `completed` (the upstream sent its last event or a whole body), `upstream-cut` (it closed,
 * failed or timed out before that, or passed what was reserved), `client-cut` (cadre's side ended it: the client
 * in the container closed, the runner was killed, the task cancelled), `refused` (an error status).
 */
export type CallEnd = 'completed' | 'upstream-cut' | 'client-cut' | 'refused';

/**
 * What a call is charged, before the budget caps it at its reservation. A finished call pays what was reported
 * (or streamed, if more), or its whole reservation when nothing was reported; a call the upstream cut pays its
 * whole reservation or what was streamed, whichever is larger; a call cadre's side cut pays what was reported or
 * streamed, whichever is larger, and its input; a refused call pays what was reported.
 */
export function chargeFor(reservation: Reservation, end: CallEnd, tracker: Pick<UsageTracker, 'usage' | 'streamedOutput'>): TokenUsage {
  const reported = tracker.usage();
  const input = reported?.input ?? reservation.input;
  const streamed = tracker.streamedOutput();
  const output = Math.max(reported?.output ?? 0, streamed);
  switch (end) {
    case 'completed': {
      if (reported === undefined) return { input: reservation.input, output: Math.max(output, reservation.output) };
      // An honest report stands (the gateway's tokenizer is not the provider's); one far below what streamed does not.
      return { input, output: beyondSlack(streamed, reported.output) ? streamed : reported.output };
    }
    case 'upstream-cut':
      return { input, output: Math.max(output, reservation.tokens - input) };
    case 'client-cut':
      return { input, output };
    case 'refused':
      return { input: reported?.input ?? 0, output: reported?.output ?? 0 };
  }
}

/** The gateway counts with o200k, not the provider's tokenizer: it disbelieves a count only past this margin. */
export const tokenizerSlack = 1.25;

/** True when `counted` passes `allowed` by more than the two tokenizers can differ. */
export function beyondSlack(counted: number, allowed: number): boolean {
  return counted > allowed * tokenizerSlack + 16;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
