// The token budget and metering: capped reservations, charges never past them, linear estimates, the charging rules.
import { describe, expect, it } from 'vitest';
import { createBudget, defaultTokenBudget } from '../../src/gateway/budget.js';
import type { BudgetEvent, Reservation } from '../../src/gateway/budget.js';
import { chargeFor, createUsageTracker, framingTokens, meterRequest } from '../../src/gateway/metering.js';
import { checkRequestShape } from '../../src/gateway/request-shape.js';
import { estimateTextTokens, estimateTokensSliced, loadTokenCounter, requestTokenBound, tokenBound } from '../../src/gateway/token-estimate.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';

const countTokens = await loadTokenCounter();

function reserved(budget: ReturnType<typeof createBudget>, input: number, output: number): Reservation {
  const result = budget.reserve(input, output);
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result.reservation;
}

describe('token budget', () => {
  it('defaults to 50,000, caps the output to what remains and refuses an input that does not fit', () => {
    const events: BudgetEvent[] = [];
    const budget = createBudget({ onEvent: (event) => events.push(event) });
    expect(budget.snapshot()).toEqual({ limit: defaultTokenBudget, used: 0, reserved: 0, remaining: 50_000 });
    const first = reserved(budget, 10_000, 20_000);
    expect(first).toMatchObject({ input: 10_000, output: 20_000, tokens: 30_000 });
    const capped = reserved(budget, 5_000, 64_000);
    expect(capped).toMatchObject({ input: 5_000, output: 15_000, tokens: 20_000 });
    const refused = budget.reserve(10, 10);
    expect(refused).toMatchObject({ ok: false, used: 0, limit: 50_000 });
    expect(events[0]).toMatchObject({ type: 'budget.exhausted', used: 0, limit: 50_000 });
    budget.settle(first, { input: 9_000, output: 3_000 });
    expect(budget.snapshot()).toEqual({ limit: 50_000, used: 12_000, reserved: 20_000, remaining: 18_000 });
    expect(events.at(-1)).toEqual({ type: 'budget.charged', input: 9_000, output: 3_000, used: 12_000, limit: 50_000, remaining: 18_000 });
  });

  it('never charges a call more than it reserved by its own figures, and settles each reservation once', () => {
    const budget = createBudget({ limit: 1_000 });
    const held = reserved(budget, 100, 300);
    expect(budget.settle(held, { input: 90_000, output: 79_075 })).toEqual({ charged: { input: 400, output: 0 }, excess: 168_675, beyond: 0 });
    expect(budget.settle(held, { input: 5, output: 5 })).toEqual({ charged: { input: 0, output: 0 }, excess: 0, beyond: 0 });
    expect(budget.snapshot()).toMatchObject({ used: 400, reserved: 0, remaining: 600 });
  });

  it('charges what the provider billed past the reservation, so the next call sees it', () => {
    const events: BudgetEvent[] = [];
    const budget = createBudget({ limit: 1_000, onEvent: (event) => events.push(event) });
    const held = reserved(budget, 100, 300);
    expect(budget.settle(held, { input: 500, output: 200 }, { input: 500, output: 200 })).toEqual({ charged: { input: 500, output: 200 }, excess: 0, beyond: 300 });
    expect(budget.snapshot()).toMatchObject({ used: 700, reserved: 0, remaining: 300 });
    expect(events.at(-1)).toMatchObject({ type: 'budget.charged', input: 500, output: 200, used: 700 });
    expect(budget.reserve(300, 10).ok).toBe(false);
  });
});

describe('loose reservations (the fast path: an upper bound of the input, counted exactly only when it matters)', () => {
  it('are taken only where reserve would take them with the whole output, else left to the exact path', () => {
    const budget = createBudget({ limit: 1_000 });
    const loose = budget.reserveLoose(600, 300, () => Promise.resolve(100));
    expect(loose).toMatchObject({ input: 600, output: 300, tokens: 900 });
    // 100 remain: a bound of 50 with 300 of output would have its output capped, so it is not taken loosely.
    expect(budget.reserveLoose(50, 300, () => Promise.resolve(10))).toBeUndefined();
    expect(budget.snapshot()).toMatchObject({ reserved: 900, remaining: 100 });
  });

  it('are tightened to their exact input once (never raised), and settle what the budget holds, never past it', async () => {
    const budget = createBudget({ limit: 1_000 });
    let counted = 0;
    const loose = budget.reserveLoose(600, 300, () => Promise.resolve((counted += 1) && 100))!;
    const [tightened, meanwhile] = await Promise.all([budget.tighten(loose), budget.tighten(loose)]);
    expect(meanwhile).toEqual(tightened);
    expect(budget.tighten(loose)).toBeUndefined();
    expect(tightened).toMatchObject({ id: loose.id, input: 100, output: 300, tokens: 400 });
    expect(counted).toBe(1);
    expect(budget.snapshot()).toMatchObject({ reserved: 400, remaining: 600 });
    // The copy taken before it was tightened settles the tightened reservation: at most 400.
    expect(budget.settle(loose, { input: 5_000, output: 5_000 })).toMatchObject({ charged: { input: 400, output: 0 } });
    expect(budget.snapshot()).toMatchObject({ used: 400, reserved: 0 });

    const wrong = budget.reserveLoose(50, 50, () => Promise.resolve(10_000))!;
    const failed = budget.reserveLoose(50, 50, () => Promise.reject(new Error('tokenizer broke')))!;
    await budget.tightenAll();
    expect(budget.snapshot()).toMatchObject({ reserved: 200 });
    budget.settle(wrong, { input: 1, output: 1 });
    budget.settle(failed, { input: 1, output: 1 });
    expect(budget.tighten(wrong)).toBeUndefined();
  });

  it('leave room to a call near the limit once tightened: calls in flight are never held at their bounds against it', async () => {
    const budget = createBudget({ limit: 1_000 });
    budget.reserveLoose(500, 100, () => Promise.resolve(120));
    const near = budget.reserve(200, 400);
    expect(near).toMatchObject({ ok: true, reservation: { output: 200 } });
    if (near.ok) budget.settle(near.reservation, { input: 0, output: 0 });
    await budget.tightenAll();
    expect(budget.reserve(200, 400)).toMatchObject({ ok: true, reservation: { input: 200, output: 400 } });
    expect(budget.snapshot()).toMatchObject({ reserved: 820, remaining: 180 });
  });
});

describe('charging', () => {
  const reservation: Reservation = { id: 1, input: 1_000, output: 4_000, tokens: 5_000 };
  const observed = (usage: { input: number; output: number } | undefined, streamed: number) => ({ usage: () => usage, streamedOutput: () => streamed });

  it('a finished call pays what was reported (what streamed, when the report is far below it); without a report its whole reservation', () => {
    expect(chargeFor(reservation, 'completed', observed({ input: 900, output: 200 }, 150))).toEqual({ input: 900, output: 200 });
    expect(chargeFor(reservation, 'completed', observed({ input: 900, output: 20 }, 30))).toEqual({ input: 900, output: 20 });
    expect(chargeFor(reservation, 'completed', observed({ input: 900, output: 1 }, 3_000))).toEqual({ input: 900, output: 3_000 });
    expect(chargeFor(reservation, 'completed', observed(undefined, 10))).toEqual({ input: 1_000, output: 4_000 });
  });

  it('a call the upstream cut pays the larger of its reservation and what was streamed', () => {
    expect(chargeFor(reservation, 'upstream-cut', observed({ input: 210, output: 1 }, 80))).toEqual({ input: 210, output: 4_790 });
    expect(chargeFor(reservation, 'upstream-cut', observed(undefined, 6_000))).toEqual({ input: 1_000, output: 6_000 });
  });

  it("a call cadre's side cut pays its input and the larger of reported and streamed output, not its reservation", () => {
    expect(chargeFor(reservation, 'client-cut', observed({ input: 950, output: 1 }, 700))).toEqual({ input: 950, output: 700 });
    expect(chargeFor(reservation, 'client-cut', observed(undefined, 0))).toEqual({ input: 1_000, output: 0 });
    expect(chargeFor(reservation, 'refused', observed(undefined, 0))).toEqual({ input: 0, output: 0 });
  });
});

describe('metering', () => {
  it('reads the output cap (times the choices), writes the reserved cap, and asks streamed chat calls for usage', () => {
    const body = { model: 'gpt-x', messages: [{ role: 'user', content: 'hello' }], stream: true, n: 2, max_completion_tokens: 512 };
    const metered = meterRequest({ kind: 'openai', endpoint: 'chat', body, defaultMaxOutput: 4_096 });
    expect(metered.maxOutputTokens).toBe(1_024);
    expect(metered.body).toMatchObject({ stream_options: { include_usage: true } });
    expect(metered.withOutputCap(600)).toMatchObject({ max_completion_tokens: 300 });
    const anthropic = meterRequest({ kind: 'anthropic', endpoint: 'messages', body: { messages: [] }, defaultMaxOutput: 512 });
    expect(anthropic.maxOutputTokens).toBe(512);
    expect(anthropic.withOutputCap(77)).toMatchObject({ max_tokens: 77 });
  });

  it('estimates like the tokenizer on ordinary text, and conservatively on long runs', async () => {
    const text = 'The gateway forwards only the request shape the runner needs. '.repeat(200);
    const exact = countTokens(text);
    const estimate = await estimateTokensSliced([text], countTokens);
    expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(exact * 0.02);
    const base64 = Buffer.from(Array.from({ length: 30_000 }, (_, index) => (index * 7919) % 256)).toString('base64');
    expect(estimateTextTokens(base64, countTokens)).toBeGreaterThanOrEqual(countTokens(base64.slice(0, 2_000)) * (base64.length / 2_000) * 0.9);
  });

  it('estimates a text of one piece as the piece-by-piece estimate does, around each bound (a long run, a chunk)', async () => {
    const word = (length: number): string => 'x'.repeat(length);
    const texts = [
      '', 'hello', ' word', `a ${word(98)} b`, `a ${word(99)} b`, `a ${word(100)} b`, word(99), word(100), word(101),
      `${'ab '.repeat(5_461)}c`, `${'ab '.repeat(5_461)}cd`, `${'ab '.repeat(5_462)}`, `${'é '.repeat(8_200)}`, `tab\t${word(120)}\nnext`,
    ];
    for (const text of texts) expect(estimateTextTokens(text, countTokens), `${text.length} characters`).toBe(await estimateTokensSliced([text], countTokens));
  });

  it('bounds the estimate from above without the tokenizer: every text file of a corpus project, and text made to break it', async () => {
    const project = unpackCorpus('taxonomy');
    let texts: string[];
    try {
      texts = Object.values(filesOf(project.root)).filter((bytes) => !bytes.includes(0)).map((bytes) => Buffer.from(bytes).toString('utf8'));
    } finally {
      project.dispose();
    }
    expect(texts.some((text) => Buffer.byteLength(text) > text.length)).toBe(true);
    const base64 = Buffer.from(Array.from({ length: 30_000 }, (_, index) => (index * 7919) % 256)).toString('base64');
    const hostile = ['<|endoftext|>'.repeat(200), '\ud800'.repeat(500), '\u{1F600}'.repeat(300), 'é'.repeat(3_000), '中文'.repeat(2_000), base64, ' '.repeat(5_000), '\n\r'.repeat(2_000), 'a'];
    for (const text of [...texts, ...hostile]) {
      const estimate = estimateTextTokens(text, countTokens);
      if (tokenBound([text]) < estimate) throw new Error(`bound ${tokenBound([text])} below the estimate ${estimate} for ${JSON.stringify(text.slice(0, 80))}`);
    }
    for (const text of hostile.filter((entry) => entry.length < 8_000)) expect(tokenBound([text])).toBeGreaterThanOrEqual(countTokens(text));
    // Many texts: one joined count (small calls) and the sliced count (large ones).
    const short = texts.filter((text) => text.length < 200).slice(0, 40);
    expect(tokenBound(short)).toBeGreaterThanOrEqual(await estimateTokensSliced(short, countTokens));
    expect(tokenBound([...texts, ...hostile])).toBeGreaterThanOrEqual(await estimateTokensSliced([...texts, ...hostile], countTokens));

    // Read off whole request bodies: as sent, with every non-ASCII character escaped, with an image, and with bytes that
    // are not UTF-8 (measured text by text then).
    const escaped = (json: string): string => json.replace(/[^\x20-\x7e]/gu, (char) => char.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''));
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64 } };
    const request = (content: unknown): string => JSON.stringify({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content }] });
    const bodies = [...texts, ...hostile].flatMap((text) => [
      Buffer.from(request(text)),
      Buffer.from(escaped(request(text))),
      Buffer.from(request([{ type: 'text', text }, image])),
    ]);
    bodies.push(Buffer.concat([Buffer.from(request('').slice(0, -4)), Buffer.alloc(3_000, 0xff), Buffer.from('"}]}')]));
    for (const body of bodies) {
      const shape = checkRequestShape(JSON.parse(body.toString('utf8')) as Record<string, unknown>, { kind: 'anthropic', endpoint: 'messages', serverTools: [] });
      if (!shape.ok) throw new Error(shape.message);
      const estimate = await estimateTokensSliced(shape.texts, countTokens);
      const bound = requestTokenBound(body, shape.texts, shape.attachmentChars);
      if (bound < estimate) throw new Error(`bound ${bound} below the estimate ${estimate} for ${body.subarray(0, 120).toString()}`);
    }
    const withImage = Buffer.from(request([{ type: 'text', text: 'hello' }, image]));
    expect(requestTokenBound(withImage, [], base64.length)).toBeLessThan(withImage.length - 30_000);
  });

  it('adds the provider-side framing of tools: the tool-use prompt, and the built-in definitions of schema-defined tools', () => {
    expect(framingTokens({ messages: [] })).toBe(0);
    expect(framingTokens({ tools: [{ name: 'read', input_schema: {} }, { type: 'custom', name: 'x' }] })).toBe(544);
    expect(framingTokens({ tools: [{ type: 'bash_20250124', name: 'bash' }, { type: 'function', function: { name: 'f' } }] })).toBe(1_552);
  });

  it('estimates a 1 MiB word in linear time (BPE on it took minutes) and yields to the event loop meanwhile', async () => {
    const word = 'a'.repeat(1 << 20);
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    const tokens = await estimateTokensSliced([word, 'x '.repeat(1 << 19)], countTokens);
    clearInterval(ticker);
    expect(tokens).toBeGreaterThan(600_000);
    expect(turns).toBeGreaterThan(0);
  });

  it('counts streamed deltas in batches, with a bound that never falls below the count in between', () => {
    const tracker = createUsageTracker(countTokens);
    const text = `The gateway relays 中文 and é and \u{1F600} as they stream; ${'x'.repeat(300)} ${'word '.repeat(400)}`;
    for (let index = 0; index < text.length; index += 3) {
      tracker.observe({ type: 'content_block_delta', delta: { type: 'text_delta', text: text.slice(index, index + 3) } });
      if (index % 150 === 0) {
        const bound = tracker.streamedAtMost();
        expect(bound).toBeGreaterThanOrEqual(tracker.streamedOutput());
      }
    }
    // Counted in a few batches rather than as one text: BPE merges differ only where the batches meet.
    const whole = estimateTextTokens(text, countTokens);
    expect(Math.abs(tracker.streamedOutput() - whole)).toBeLessThanOrEqual(whole * 0.03);
    expect(tracker.streamedAtMost()).toBe(tracker.streamedOutput());
  });

  it('reads usage from JSON bodies and stream events of both providers, and counts what streamed past', () => {
    const anthropic = createUsageTracker(countTokens);
    anthropic.observe({ type: 'message_start', message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } });
    anthropic.observe({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'hello there, how are you' } });
    expect(anthropic.finished()).toBe(false);
    anthropic.observe({ type: 'message_delta', usage: { output_tokens: 42 } });
    anthropic.observe({ type: 'message_stop' });
    expect(anthropic.usage()).toEqual({ input: 15, output: 42 });
    expect(anthropic.streamedOutput()).toBe(countTokens('hello there, how are you'));
    expect(anthropic.finished()).toBe(true);

    const chat = createUsageTracker(countTokens);
    chat.observe({ choices: [{ delta: { content: 'x', tool_calls: [{ function: { arguments: '{"a":1}' } }] } }], usage: null });
    expect(chat.usage()).toBeUndefined();
    expect(chat.streamedOutput()).toBeGreaterThan(1);
    chat.observe({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } });
    chat.done();
    expect(chat.usage()).toEqual({ input: 7, output: 3 });
    expect(chat.finished()).toBe(true);

    const responses = createUsageTracker(countTokens);
    responses.observe({ type: 'response.output_text.delta', delta: 'abc def' });
    responses.observe({ type: 'response.completed', response: { usage: { input_tokens: 4, output_tokens: 6 } } });
    expect(responses.usage()).toEqual({ input: 4, output: 6 });
    expect(responses.finished()).toBe(true);
  });
});
