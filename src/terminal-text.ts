// Text made safe for a terminal: escape sequences, control characters and bidi overrides removed, line by line marked by origin.

const esc = 0x1b;
/** 8-bit introducers: CSI, and the string controls DCS, SOS, OSC, PM, APC (ended by BEL, ESC \ or ST). */
const c1Csi = 0x9b;
const c1Strings = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** After ESC: the characters that open a string control (DCS P, SOS X, OSC ], PM ^, APC _). */
const escStrings = new Set(['P', 'X', ']', '^', '_']);

/** C0 controls other than tab and newline, DEL, C1 controls, and the bidi overrides and isolates that reorder a line. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** Where the escape sequence starting at `start` ends (exclusive); an unterminated one runs to the end of the text. */
function sequenceEnd(text: string, start: number): number {
  const code = text.charCodeAt(start);
  const csi = code === c1Csi || (code === esc && text[start + 1] === '[');
  const stringControl = c1Strings.has(code) || (code === esc && escStrings.has(text[start + 1] ?? ''));
  let index = start + (code === esc ? 2 : 1);
  if (csi) {
    while (index < text.length && /[0-?]/.test(text[index] ?? '')) index += 1;
    while (index < text.length && /[ -/]/.test(text[index] ?? '')) index += 1;
    return index < text.length && /[@-~]/.test(text[index] ?? '') ? index + 1 : index;
  }
  if (stringControl) {
    for (; index < text.length; index += 1) {
      const at = text.charCodeAt(index);
      if (at === 0x07 || at === 0x9c) return index + 1;
      if (at === esc && text[index + 1] === '\\') return index + 2;
    }
    return index;
  }
  return Math.min(index, text.length);
}

/** A colour or weight (SGR: ESC [ digits and semicolons m): the only sequence cadre's own text carries. */
function isColour(sequence: string): boolean {
  return sequence.charCodeAt(0) === esc && sequence[1] === '[' && sequence.endsWith('m') && /^[0-9;]*$/.test(sequence.slice(2, -1));
}

/**
 * Removes what a terminal would act on rather than show: cursor moves, screen clears, title changes, hyperlinks,
 * bells, backspaces, carriage returns (a lone CR becomes a newline, so nothing overwrites a line). `keepColour`
 * keeps SGR colour sequences, for cadre's own styled text.
 */
export function terminalSafe(text: string, options: { keepColour?: boolean } = {}): string {
  let out = '';
  let kept = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (!isControl(code)) {
      index += 1;
      continue;
    }
    out += text.slice(kept, index);
    if (code === esc || code === c1Csi || c1Strings.has(code)) {
      const end = sequenceEnd(text, index);
      if (options.keepColour && isColour(text.slice(index, end))) out += text.slice(index, end);
      index = end;
    } else if (code === 0x0d) {
      out += '\n';
      index += text[index + 1] === '\n' ? 2 : 1;
    } else {
      index += 1;
    }
    kept = index;
  }
  return out + text.slice(kept);
}

/** Prefixes every line of `chunk` that starts in it with `marker`; `state` carries whether the last chunk ended a line. */
export function markLines(chunk: string, marker: string, state: { atLineStart: boolean }): string {
  let out = '';
  for (const [index, line] of chunk.split('\n').entries()) {
    if (index > 0) {
      out += '\n';
      state.atLineStart = true;
    }
    if (line === '') continue;
    if (state.atLineStart) out += marker;
    out += line;
    state.atLineStart = false;
  }
  return out;
}
