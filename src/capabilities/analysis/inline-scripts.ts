// The inline <script> blocks of server-side views and HTML pages as one script the parser can read, at their own offsets in the file.

/** Views whose `<script>` blocks run in the browser: EJS, HTML, Handlebars/Mustache, Nunjucks/Swig/Twig. */
const viewPath = /\.(?:ejs|html?|hbs|handlebars|mustache|njk|nunjucks|swig|twig)$/i;

/** Script types that hold JavaScript (none given is JavaScript); templates, JSON and the rest are data. */
const javascriptType = /^(?:|text\/javascript|application\/javascript|text\/ecmascript|application\/ecmascript|module)$/i;

/** Template tags inside a script, by their delimiters: EJS's alone in an .ejs view, every engine's in the others. */
const ejsTags: ReadonlyArray<readonly [string, string]> = [['<%', '%>']];
const anyTags: ReadonlyArray<readonly [string, string]> = [['<%', '%>'], ['{{', '}}'], ['{%', '%}'], ['{#', '#}']];

/**
 * Every character of `text` that is not a newline, as a space.
 */
const blanked = (text: string): string => text.replace(/[^\n]/g, ' ');

/**
 * The script with its template tags replaced, offsets kept: an output tag (`<%=`, `<%-`, `{{`) becomes a number, so the
 * script stays an expression there; the others are blanked. Scanned forward with indexOf: a view from a repository may
 * open a thousand tags and close none, and a lazy regex would search to its end from each of them.
 */
function withoutTags(script: string, tags: ReadonlyArray<readonly [string, string]>): string {
  const open = tags.map(([opener]) => script.indexOf(opener));
  let out = '';
  let at = 0;
  for (;;) {
    let kind = -1;
    for (let index = 0; index < tags.length; index += 1) if (open[index]! !== -1 && (kind === -1 || open[index]! < open[kind]!)) kind = index;
    if (kind === -1) break;
    const [opener, closer] = tags[kind]!;
    const start = open[kind]!;
    const close = script.indexOf(closer, start + opener.length + (opener === '{{' && script[start + 2] === '{' ? 1 : 0));
    // No closer after this opener means none after any later one of its kind either.
    if (close === -1) {
      open[kind] = -1;
      continue;
    }
    let end = close + closer.length;
    if (opener === '{{' && script[end] === '}') end += 1;
    const output = opener === '{{' || (opener === '<%' && (script[start + 2] === '=' || script[start + 2] === '-'));
    const blank = blanked(script.slice(start, end));
    out += script.slice(at, start) + (output ? `0${blank.slice(1)}` : blank);
    at = end;
    for (let index = 0; index < tags.length; index += 1) if (open[index]! !== -1 && open[index]! < end) open[index] = script.indexOf(tags[index]![0], end);
  }
  return out + script.slice(at);
}

/** The `<script …>` blocks of a view: their attributes, body and the body's offset, found by scanning forward once. */
function scriptBlocks(text: string): Array<{ attributes: string; body: string; start: number }> {
  const lower = text.toLowerCase();
  const blocks: Array<{ attributes: string; body: string; start: number }> = [];
  const closing = /<\/script\s*>/y;
  let from = 0;
  for (;;) {
    const open = lower.indexOf('<script', from);
    if (open === -1) return blocks;
    // `<script` followed by a word character is another tag (<scripts>, <script_x>).
    if (/\w/.test(text[open + 7] ?? '')) {
      from = open + 7;
      continue;
    }
    const tagEnd = text.indexOf('>', open + 7);
    if (tagEnd === -1) return blocks;
    let close = lower.indexOf('</script', tagEnd + 1);
    for (; close !== -1; close = lower.indexOf('</script', close + 8)) {
      closing.lastIndex = close;
      if (closing.test(text)) break;
    }
    // No end after this block means none after a later one either.
    if (close === -1) return blocks;
    blocks.push({ attributes: text.slice(open + 7, tagEnd), body: text.slice(tagEnd + 1, close), start: tagEnd + 1 });
    from = closing.lastIndex;
  }
}

export function isViewPath(path: string): boolean {
  return viewPath.test(path);
}

/**
 * The file's text with everything but its inline scripts' JavaScript blanked (newlines kept), so every offset in the
 * result is the same offset in the view; null when the view has no inline script.
 */
export function inlineScriptText(path: string, text: string): string | null {
  const blocks = scriptBlocks(text).filter(({ attributes, body }) => {
    if (/\bsrc\s*=/i.test(attributes)) return false;
    const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(attributes)?.[1] ?? '';
    return javascriptType.test(type) && /\S/.test(body);
  });
  if (blocks.length === 0) return null;
  const tags = /\.ejs$/i.test(path) ? ejsTags : anyTags;
  let out = '';
  let at = 0;
  for (const { body, start } of blocks) {
    out += blanked(text.slice(at, start)) + withoutTags(body, tags);
    at = start + body.length;
  }
  return out + blanked(text.slice(at));
}
