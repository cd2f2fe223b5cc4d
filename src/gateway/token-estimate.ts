// Token estimates in linear time: the o200k tokenizer on ordinary words, a conservative rate on long runs, in slices that yield.
import { isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

const noSpecialTokens = { disallowedSpecial: new Set<string>() };
let tokenCounter: Promise<TokenCounter> | undefined;

/** Loads the o200k tokenizer once, on first use: its tables take a noticeable time to load, which cadre's startup should not pay. */
export function loadTokenCounter(): Promise<TokenCounter> {
  tokenCounter ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => (text: string) => countTokens(text, noSpecialTokens));
  return tokenCounter;
}

/**
 * BPE is superlinear in the length of one word (4K letters take 25 ms, 16K take 240 ms), so runs
 * without whitespace longer than this are not given to the tokenizer.
 */
const longRun = /\S{100,}/g;
const holdsLongRun = /\S{100}/;
/** Text handed to the tokenizer at once; cut at whitespace, so counts match the whole text's. */
const chunkChars = 16_384;
/** The event loop gets a turn after this much counting, so other containers, the prompt and the audit go on. */
const sliceMs = 4;

/**
 * A run without whitespace, priced without the tokenizer: ASCII at 1 token per 1.5 characters (base64 and
 * random text come out at 0.5 to 0.7 tokens per character), anything else at 1 token per character.
 */
function longRunTokens(run: string): number {
  let ascii = 0;
  for (let index = 0; index < run.length; index += 1) if (run.charCodeAt(index) < 0x80) ascii += 1;
  return Math.ceil(ascii / 1.5) + (run.length - ascii);
}

/**
 * How long runs are priced: `estimate` as above; `bound` at a token per UTF-8 byte, never below any byte-level
 * tokenizer's count (what a reservation needs: some runs of symbols come out near a token per character).
 */
export type LongRuns = 'estimate' | 'bound';

/** Splits `text` into pieces the tokenizer handles in linear time, with the long runs already priced. */
function* pieces(text: string, longRuns: LongRuns = 'estimate'): Generator<{ text: string; priced: number }> {
  let rest = 0;
  for (const match of text.matchAll(longRun)) {
    yield* chunks(text.slice(rest, match.index));
    yield { text: '', priced: longRuns === 'bound' ? Buffer.byteLength(match[0], 'utf8') : longRunTokens(match[0]) };
    rest = match.index + match[0].length;
  }
  yield* chunks(text.slice(rest));
}

function* chunks(text: string): Generator<{ text: string; priced: number }> {
  let start = 0;
  while (text.length - start > chunkChars) {
    const cut = text.lastIndexOf(' ', start + chunkChars);
    const end = cut > start ? cut : start + chunkChars;
    yield { text: text.slice(start, end), priced: 0 };
    start = end;
  }
  if (start < text.length) yield { text: text.slice(start), priced: 0 };
}

/** The tokenizer made linear: long runs priced without it (see estimateTextTokens). */
export function linearCounter(countTokens: TokenCounter): TokenCounter {
  return (text) => estimateTextTokens(text, countTokens);
}

/** Estimates a short text's tokens synchronously (stream deltas); linear in its length. */
export function estimateTextTokens(text: string, countTokens: TokenCounter): number {
  // Most texts (a stream's deltas, a short reply) are one piece: no long run, not longer than a chunk.
  if (text.length <= chunkChars && (text.length < 100 || !holdsLongRun.test(text))) return text === '' ? 0 : countTokens(text);
  let total = 0;
  for (const piece of pieces(text)) total += piece.priced + (piece.text === '' ? 0 : countTokens(piece.text));
  return total;
}

/**
 * An upper bound of `estimateTokensSliced(texts)`, in linear time without the tokenizer. o200k is a byte-level BPE: each
 * token stands for at least one UTF-8 byte (special tokens are not parsed), so a text has at most as many tokens as bytes;
 * a long run is priced at most one token per UTF-16 unit, and each unit is at least one byte; and the texts are counted
 * apart or joined by one space, one more byte each.
 */
export function tokenBound(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8') + 1;
  return bytes;
}

/**
 * An upper bound of `tokenBound(texts)` read off the request body in constant time, when the body is valid UTF-8: each
 * text is a string literal of the body (a key or a value, each once), and a literal takes at least as many bytes in the
 * body as its text in UTF-8 (a raw character the same; an escape more: `\n` 2 for 1, `\u00e9` 6 for 2, a surrogate pair
 * 12 for 4, a lone surrogate 6 for the 3 of U+FFFD), plus two quotes, which pay for the one byte per text. The
 * attachments' literals, priced apart, are taken off by their length (at most their bytes). An invalid body (whose bad
 * bytes each decode to the 3 bytes of U+FFFD) is measured text by text.
 */
export function requestTokenBound(body: Buffer, texts: readonly string[], attachmentChars: number): number {
  return isUtf8(body) ? body.length - attachmentChars : tokenBound(texts);
}

/** Paces the slices: told the time each took, and waited on before the next (see FairShare). */
export interface Pace {
  spent(ms: number): void;
  turn(): Promise<void> | undefined;
}

/** Estimates the tokens of many texts, giving the event loop a turn every few milliseconds. */
export async function estimateTokensSliced(texts: readonly string[], countTokens: TokenCounter, pace?: Pace, longRuns: LongRuns = 'estimate'): Promise<number> {
  // Most calls are small: counted in one go, without the slicing's bookkeeping.
  let length = 0;
  for (const text of texts) length += text.length + 1;
  if (length <= chunkChars && (longRuns === 'estimate' || !texts.some((text) => holdsLongRun.test(text)))) {
    const started = performance.now();
    const count = estimateTextTokens(texts.join(' '), countTokens);
    pace?.spent(performance.now() - started);
    return count;
  }
  let total = 0;
  let sliceStart = performance.now();
  for (const text of texts) {
    for (const piece of pieces(text, longRuns)) {
      total += piece.priced + (piece.text === '' ? 0 : countTokens(piece.text));
      const took = performance.now() - sliceStart;
      if (took > sliceMs) {
        pace?.spent(took);
        await nextTurn();
        await pace?.turn();
        sliceStart = performance.now();
      }
    }
  }
  pace?.spent(performance.now() - sliceStart);
  return total;
}
