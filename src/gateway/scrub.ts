// Secrets out of what the gateway relays: every form in which an upstream could quote a key it holds (raw, URL-encoded,
// JSON-escaped, inside base64 such as Basic auth, hex), found in streamed bytes even when split across reads, and in headers.
import type { OutgoingHttpHeaders } from 'node:http';

/** What a secret is replaced with: no quote, backslash or control character, so JSON and SSE around it stay valid. */
export const secretMark = '[secret removed by the cadre gateway]';
const mark = Buffer.from(secretMark);
/** Shorter values are not treated as secrets: removing them would mangle ordinary text and protect nothing. */
export const minSecretChars = 8;

/** The byte forms of a set of secrets, computed once (per gateway), searched for in every reply. */
export interface SecretForms {
  readonly forms: readonly Buffer[];
  /** The same forms as latin1 strings (how Node reads header bytes), and lowercased, for header names. */
  readonly texts: readonly string[];
  readonly lowerTexts: readonly string[];
  /** Longest form, in bytes: the most a scrubber holds back is one byte less. */
  readonly longest: number;
  /** Flags the bytes a form starts with. */
  readonly starts: Uint8Array;
}

/** The forms of `secrets` an upstream might echo; secrets shorter than minSecretChars are left out. */
export function secretForms(secrets: readonly string[]): SecretForms {
  const texts = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < minSecretChars) continue;
    const utf8 = Buffer.from(secret, 'utf8');
    const json = JSON.stringify(secret).slice(1, -1);
    for (const text of [secret, encodeURIComponent(secret), encodeURIComponent(secret).replace(/%[\da-f]{2}/gi, (escape) => escape.toLowerCase()), json, json.replace(/\//g, '\\/'), utf8.toString('hex'), utf8.toString('hex').toUpperCase()]) {
      texts.add(Buffer.from(text, 'utf8').toString('latin1'));
    }
    for (const core of base64Cores(utf8)) {
      texts.add(core);
      texts.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  // A form that contains another is found through that one.
  const kept = [...texts].filter((text) => ![...texts].some((other) => other !== text && text.includes(other)));
  const forms = kept.map((text) => Buffer.from(text, 'latin1'));
  const starts = new Uint8Array(256);
  for (const form of forms) starts[form[0]!] = 1;
  return { forms, texts: kept, lowerTexts: kept.map((text) => text.toLowerCase()), longest: Math.max(0, ...forms.map((form) => form.length)), starts };
}

/**
 * The base64 characters that encode `secret` wherever it sits in a longer encoded text (`user:key` in Basic auth, a JSON
 * document, the key alone): one for each of the three alignments, less the characters shared with the bytes around it.
 */
function base64Cores(secret: Buffer): string[] {
  const cores: string[] = [];
  for (const [offset, skip] of [[0, 0], [1, 2], [2, 3]] as const) {
    const whole = Math.floor((offset + secret.length) / 3) * 4;
    const core = Buffer.concat([Buffer.alloc(offset), secret]).toString('base64').slice(skip, whole);
    if (core.length >= minSecretChars) cores.push(core);
  }
  return cores;
}

/** A reply's bytes in, the same bytes out with every secret form replaced; holds back only a tail that could begin one. */
export interface Scrubber {
  /** The bytes of `chunk` that can go now (the chunk itself when it holds no secret and ends in none's first bytes). */
  push(chunk: Buffer): Buffer;
  /** What was held back at the end of the reply. */
  end(): Buffer;
}

export function createScrubber(secrets: SecretForms): Scrubber {
  const { forms, starts } = secrets;
  let held: Buffer | undefined;
  return {
    push(chunk) {
      if (forms.length === 0) return chunk;
      const bytes = held === undefined ? chunk : Buffer.concat([held, chunk]);
      held = undefined;
      const cleaned = replaceForms(bytes, forms);
      const keep = heldFrom(cleaned.bytes, cleaned.from, secrets.longest, forms, starts);
      if (keep === cleaned.bytes.length) return cleaned.bytes;
      held = Buffer.from(cleaned.bytes.subarray(keep));
      return cleaned.bytes.subarray(0, keep);
    },
    end() {
      const rest = held ?? Buffer.alloc(0);
      held = undefined;
      return rest;
    },
  };
}

/** `bytes` with each form replaced by the mark; `from` is where the text after the last replacement starts. */
function replaceForms(bytes: Buffer, forms: readonly Buffer[]): { bytes: Buffer; from: number } {
  // The next place each form occurs at from `from` on (-1: nowhere further).
  const next = forms.map((form) => bytes.indexOf(form));
  let parts: Buffer[] | undefined;
  let from = 0;
  for (;;) {
    let found = -1;
    let length = 0;
    for (let index = 0; index < forms.length; index += 1) {
      let at = next[index]!;
      if (at >= 0 && at < from) next[index] = at = bytes.indexOf(forms[index]!, from);
      if (at >= 0 && (found < 0 || at < found || (at === found && forms[index]!.length > length))) {
        found = at;
        length = forms[index]!.length;
      }
    }
    if (found < 0) break;
    (parts ??= []).push(bytes.subarray(from, found), mark);
    from = found + length;
  }
  if (parts === undefined) return { bytes, from: 0 };
  parts.push(bytes.subarray(from));
  const joined = Buffer.concat(parts);
  return { bytes: joined, from: joined.length - (bytes.length - from) };
}

/** Where the tail that could be the start of a form begins (`bytes.length` when none could). */
function heldFrom(bytes: Buffer, from: number, longest: number, forms: readonly Buffer[], starts: Uint8Array): number {
  for (let at = Math.max(from, bytes.length - longest + 1); at < bytes.length; at += 1) {
    if (starts[bytes[at]!] === 0) continue;
    const tail = bytes.length - at;
    for (const form of forms) {
      if (form.length > tail && form.compare(bytes, at, bytes.length, 0, tail) === 0) return at;
    }
  }
  return bytes.length;
}

/** `text` with every secret form replaced (a whole reply at once: an MCP result, an error message). */
export function scrubText(text: string, secrets: SecretForms): string {
  if (secrets.forms.length === 0) return text;
  const scrubber = createScrubber(secrets);
  const bytes = Buffer.from(text, 'utf8');
  const cleaned = Buffer.concat([scrubber.push(bytes), scrubber.end()]);
  return cleaned.length === bytes.length && cleaned.equals(bytes) ? text : cleaned.toString('utf8');
}

/** Response headers with secret forms replaced in their values; a header whose name holds one is dropped. */
export function scrubHeaders<Headers extends OutgoingHttpHeaders>(headers: Headers, secrets: SecretForms): Headers {
  if (secrets.forms.length === 0) return headers;
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lowerName = name.toLowerCase();
    const leaked = secrets.lowerTexts.some((text) => lowerName.includes(text));
    const values = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
    const cleaned = values.map((entry) => (secrets.texts.some((text) => entry.includes(text)) ? scrubHeaderValue(entry, secrets) : entry));
    if (!leaked && cleaned.every((entry, index) => entry === values[index])) continue;
    out ??= { ...headers };
    if (leaked) delete out[name];
    else out[name] = Array.isArray(value) ? cleaned : cleaned[0];
  }
  return (out ?? headers) as Headers;
}

function scrubHeaderValue(value: string, secrets: SecretForms): string {
  const scrubber = createScrubber(secrets);
  return Buffer.concat([scrubber.push(Buffer.from(value, 'latin1')), scrubber.end()]).toString('latin1');
}
