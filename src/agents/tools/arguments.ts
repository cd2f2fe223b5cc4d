// The size of a tool call's arguments, and their short forms: what a refused or oversized call leaves in the transcript and the audit.

/** The longest arguments a call may have (a 100 KB file, JSON-escaped, fits with room to spare). */
export const maxArgumentChars = 256 * 1024;

/** Strings longer than this are elided from the arguments of a refused call before they go back to the model. */
const refusedStringChars = 200;

/** The length of the arguments as JSON; `Infinity` when they cannot be serialised. */
export function argumentChars(input: unknown): number {
  try {
    return JSON.stringify(input ?? null).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

const sizeOf = (chars: number): string => (chars >= 1024 * 1024 ? `${(chars / 1024 / 1024).toFixed(1)} MB` : chars >= 1024 ? `${(chars / 1024).toFixed(1)} KB` : `${chars} characters`);

/** Every string longer than `keep` characters replaced by a note of its size; the shape and short values stay. */
export function elideLongStrings(input: unknown, keep = refusedStringChars, depth = 0): unknown {
  if (typeof input === 'string') return input.length <= keep ? input : `[${sizeOf(input.length)} omitted]`;
  if (depth > 8 || input === null || typeof input !== 'object') return input;
  if (Array.isArray(input)) return input.slice(0, 50).map((item) => elideLongStrings(item, keep, depth + 1));
  return Object.fromEntries(Object.entries(input).slice(0, 50).map(([key, value]) => [key.slice(0, 100), elideLongStrings(value, keep, depth + 1)]));
}

/** The arguments of a call that was refused, as they stay in the conversation: no long value is sent back to the model. */
export function refusedArguments(input: unknown): Record<string, unknown> {
  const elided = elideLongStrings(input);
  return elided !== null && typeof elided === 'object' && !Array.isArray(elided) ? (elided as Record<string, unknown>) : { value: elided };
}

/** One short line naming a call, for people: `read-file {"path":".env"}`. */
export function describeCall(name: string, input: unknown, max = 120): string {
  const text = `${name.slice(0, 64)} ${JSON.stringify(elideLongStrings(input, 60)) ?? ''}`;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Why a call's arguments are refused for their size, or null when they fit. */
export function oversizedArguments(input: unknown, max = maxArgumentChars): string | null {
  const chars = argumentChars(input);
  if (chars <= max) return null;
  return `the arguments of this call are ${Number.isFinite(chars) ? sizeOf(chars) : 'not serialisable'}, over the ${sizeOf(max)} limit; they were not kept. Files over 100 KB cannot be written: split the work into smaller files or edits`;
}
