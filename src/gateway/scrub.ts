// Secrets out of what the gateway relays: every form in which an upstream could quote a key it holds (raw, URL-encoded,
// JSON-escaped, inside base64 such as Basic auth, hex), found in streamed bytes even when split across reads, and in headers.
import type { OutgoingHttpHeaders } from 'node:http';

/** What a secret is replaced with: no quote, backslash or control character, so JSON and SSE around it stay valid. */
export const secretMark = '[secret removed by the cadre gateway]';
/** Shorter values are not treated as secrets: removing them would mangle ordinary text and protect nothing. */
export const minSecretChars = 8;

/** The forms of a set of secrets, computed once (per gateway), searched for in every reply. */
export interface SecretForms {
  /** Each form's bytes as a latin1 string, one character per byte (as Node reads header bytes). */
  readonly texts: readonly string[];
  /** Those that differ lowercased, lowercased: header names arrive lowercased. */
  readonly lowerTexts: readonly string[];
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
  return { texts: kept, lowerTexts: kept.map((text) => text.toLowerCase()).filter((text) => !kept.includes(text)) };
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
  const { texts } = secrets;
  // Bytes are searched as latin1 text, one character per byte: V8's string search costs a fraction of Buffer.indexOf's call.
  let held = '';
  return {
    push(chunk) {
      if (texts.length === 0) return chunk;
      const text = held + chunk.toString('latin1');
      const cleaned = replaceForms(text, texts);
      const keep = heldFrom(cleaned.text, cleaned.from, texts);
      const hadHeld = held !== '';
      held = cleaned.text.slice(keep);
      if (!hadHeld && keep === text.length && cleaned.text === text) return chunk;
      return Buffer.from(keep === cleaned.text.length ? cleaned.text : cleaned.text.slice(0, keep), 'latin1');
    },
    end() {
      const rest = Buffer.from(held, 'latin1');
      held = '';
      return rest;
    },
  };
}

/** `text` with each form replaced by the mark; `from` is where the text after the last replacement starts. */
function replaceForms(text: string, forms: readonly string[]): { text: string; from: number } {
  let found = -1;
  for (let index = 0; index < forms.length && found < 0; index += 1) found = text.indexOf(forms[index]!);
  // Most reads hold no secret: one search per form, nothing allocated.
  if (found < 0) return { text, from: 0 };
  let out = '';
  let from = 0;
  for (;;) {
    let at = -1;
    let length = 0;
    for (const form of forms) {
      const place = text.indexOf(form, from);
      if (place >= 0 && (at < 0 || place < at || (place === at && form.length > length))) {
        at = place;
        length = form.length;
      }
    }
    if (at < 0) break;
    out += text.slice(from, at) + secretMark;
    from = at + length;
  }
  out += text.slice(from);
  return { text: out, from: out.length - (text.length - from) };
}

/** Where the tail that could be the start of a form begins (`text.length` when none could). */
function heldFrom(text: string, from: number, forms: readonly string[]): number {
  const end = text.length;
  let held = end;
  for (const form of forms) {
    // Each place in the tail where the form's first character is, while it could still start a tail shorter than the form.
    let at = text.indexOf(form[0]!, Math.max(from, end - form.length + 1));
    while (at >= 0 && at < held) {
      if (form.startsWith(text.slice(at))) {
        held = at;
        break;
      }
      at = text.indexOf(form[0]!, at + 1);
    }
  }
  return held;
}

/** `text` with every secret form replaced (a whole reply at once: an MCP result, an error message). */
export function scrubText(text: string, secrets: SecretForms): string {
  if (secrets.texts.length === 0) return text;
  const scrubber = createScrubber(secrets);
  const bytes = Buffer.from(text, 'utf8');
  const cleaned = Buffer.concat([scrubber.push(bytes), scrubber.end()]);
  return cleaned.length === bytes.length && cleaned.equals(bytes) ? text : cleaned.toString('utf8');
}

/** Response headers with secret forms replaced in their values; a header whose name holds one is dropped. */
export function scrubHeaders<Headers extends OutgoingHttpHeaders>(headers: Headers, secrets: SecretForms): Headers {
  if (secrets.texts.length === 0) return headers;
  // One search per form through all names and values together: most replies hold no secret in any header.
  let all = '';
  for (const name in headers) {
    const value = headers[name];
    all += `${name}\n${typeof value === 'string' ? value : Array.isArray(value) ? value.join('\n') : String(value)}\n`;
  }
  if (!secrets.texts.some((text) => all.includes(text)) && !secrets.lowerTexts.some((text) => all.includes(text))) return headers;
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lowerName = name.toLowerCase();
    const leaked = secrets.texts.some((text) => lowerName.includes(text.toLowerCase()));
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
