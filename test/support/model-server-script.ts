// The scripted-conversation format the local model server replays, and how fixtures are loaded.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Of the input, tokens read from the prompt cache (sent as each provider reports them). */
  cachedInputTokens: z.number().int().nonnegative().optional(),
});

/** One reply of the model: some text and/or tool calls, with the usage the provider reports. */
const replySchema = z.object({
  text: z.string().optional(),
  toolCalls: z.array(z.object({ name: z.string(), input: z.record(z.string(), z.unknown()) })).optional(),
  usage: usageSchema.optional(),
  /** Pause between streamed chunks, to let a test abort mid-stream. */
  chunkDelayMs: z.number().int().nonnegative().optional(),
  /** Wait this long before the response starts (the model thinking). */
  delayMs: z.number().int().nonnegative().optional(),
  /** Send this many chunks, then nothing more while keeping the connection open (a stalled stream). */
  stallAfterChunks: z.number().int().nonnegative().optional(),
  /** After this many chunks (default 1: the stream's start), an error event instead of the rest (Anthropic's `event: error`, OpenAI's `error` chunk). */
  streamError: z.object({ type: z.string(), message: z.string(), afterChunks: z.number().int().nonnegative().optional() }).optional(),
});

/** An HTTP failure served instead of a reply (401, 429, 500, a 400 "context too long", …). */
const failureSchema = z.object({
  error: z.object({
    status: z.number().int(),
    kind: z.enum(['auth', 'rate-limit', 'server', 'context-too-long', 'overloaded']).optional(),
    message: z.string().optional(),
    retryAfter: z.string().optional(),
  }),
});

export const modelTurnSchema = z.union([failureSchema, replySchema]);
export const modelScriptSchema = z.object({ description: z.string().optional(), turns: z.array(modelTurnSchema) });

export type ModelTurn = z.infer<typeof modelTurnSchema>;
export type ModelReply = z.infer<typeof replySchema>;
export type ModelFailure = z.infer<typeof failureSchema>['error'];
export type ModelScript = z.infer<typeof modelScriptSchema>;

export const isFailure = (turn: ModelTurn): turn is z.infer<typeof failureSchema> => 'error' in turn;

const fixturesDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

/** Loads `test/fixtures/models/<name>.json` (or an absolute path) and validates it. */
export function loadModelScript(nameOrPath: string): ModelScript {
  const path = nameOrPath.endsWith('.json') && nameOrPath.startsWith('/') ? nameOrPath : `${fixturesDir}${nameOrPath}.json`;
  return modelScriptSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** The failure kind implied by a status when the script does not name one. */
export function failureKind(failure: ModelFailure): NonNullable<ModelFailure['kind']> {
  if (failure.kind) return failure.kind;
  if (failure.status === 401 || failure.status === 403) return 'auth';
  if (failure.status === 429) return 'rate-limit';
  if (failure.status === 529) return 'overloaded';
  if (failure.status === 400 || failure.status === 413) return 'context-too-long';
  return 'server';
}
