// Writes generated code in the project's own style: canonical source (2 spaces, single quotes, semicolons) → indent, quotes, semicolons from the context.
import type { CodeStyle } from '../../project/style.js';

export type SourceStyle = Pick<CodeStyle, 'indent' | 'quotes' | 'semicolons'>;

/**
 * Rewrites canonical source into `style`. Canonical source is written by the generators with two-space indents,
 * single-quoted strings, double-quoted JSX attributes, semicolons, and no line starting with `(`, `[` or a backtick.
 */
export function formatSource(canonical: string, style: SourceStyle): string {
  let text = style.quotes === 'double' ? toDoubleQuotes(canonical) : canonical;
  const unit = style.indent.kind === 'tab' ? '\t' : ' '.repeat(style.indent.size);
  text = text.split('\n').map((line) => {
    const leading = /^ */.exec(line)?.[0].length ?? 0;
    let body = line.slice(leading);
    if (!style.semicolons && body.endsWith(';') && !body.startsWith('for (')) body = body.slice(0, -1);
    return unit.repeat(Math.floor(leading / 2)) + ' '.repeat(leading % 2) + body;
  }).join('\n');
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Single-quoted string literals become double-quoted; comments, template literals and JSX text are left alone. */
function toDoubleQuotes(source: string): string {
  let out = '';
  let index = 0;
  const templateDepth: number[] = [];
  let braces = 0;
  while (index < source.length) {
    const char = source[index] as string;
    const next = source[index + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', index);
      const stop = end === -1 ? source.length : end;
      out += source.slice(index, stop);
      index = stop;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', index + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(index, stop);
      index = stop;
    } else if (char === '\'' || char === '"') {
      let cursor = index + 1;
      let value = '';
      while (cursor < source.length && source[cursor] !== char) {
        if (source[cursor] === '\\') {
          value += source.slice(cursor, cursor + 2);
          cursor += 2;
        } else {
          value += source[cursor];
          cursor += 1;
        }
      }
      out += char === '\'' ? `"${value.replaceAll('\\\'', '\'').replaceAll(/(?<!\\)"/g, '\\"')}"` : source.slice(index, cursor + 1);
      index = cursor + 1;
    } else if (char === '`') {
      index = copyTemplate(source, index + 1, (chunk) => { out += chunk; }, '`');
      if (source.slice(index - 2, index) === '${') {
        templateDepth.push(braces);
      }
    } else {
      if (char === '{') braces += 1;
      if (char === '}') {
        if (templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === braces) {
          templateDepth.pop();
          index = copyTemplate(source, index + 1, (chunk) => { out += chunk; }, '}');
          if (source.slice(index - 2, index) === '${') templateDepth.push(braces);
          continue;
        }
        braces -= 1;
      }
      out += char;
      index += 1;
    }
  }
  return out;
}

/** Copies template text up to and including its closing backtick or the next `${`; returns the index after it. */
function copyTemplate(source: string, start: number, emit: (chunk: string) => void, opener: string): number {
  let cursor = start;
  while (cursor < source.length) {
    if (source[cursor] === '\\') cursor += 2;
    else if (source[cursor] === '`') { cursor += 1; break; }
    else if (source[cursor] === '$' && source[cursor + 1] === '{') { cursor += 2; break; }
    else cursor += 1;
  }
  emit(opener + source.slice(start, cursor));
  return cursor;
}
