// The inline <script> blocks of server-side views and HTML pages as one script the parser can read, at their own offsets in the file.

/** Views whose `<script>` blocks run in the browser: EJS, HTML, Handlebars/Mustache, Nunjucks/Swig/Twig. */
const viewPath = /\.(?:ejs|html?|hbs|handlebars|mustache|njk|nunjucks|swig|twig)$/i;

/** Script types that hold JavaScript (none given is JavaScript); templates, JSON and the rest are data. */
const javascriptType = /^(?:|text\/javascript|application\/javascript|text\/ecmascript|application\/ecmascript|module)$/i;

/** Template tags inside a script: output tags become a number (the script stays an expression), the others blank. */
const ejsTag = /<%([=-]?)[\s\S]*?%>/g;
const anyTag = /<%([=-]?)[\s\S]*?%>|\{\{(\{?)[\s\S]*?\}\}\}?|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/g;

export function isViewPath(path: string): boolean {
  return viewPath.test(path);
}

/**
 * The file's text with everything but its inline scripts' JavaScript blanked (newlines kept), so every offset in the
 * result is the same offset in the view; null when the view has no inline script.
 */
export function inlineScriptText(path: string, text: string): string | null {
  const blocks = [...text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)].filter((match) => {
    const attributes = match[1] ?? '';
    if (/\bsrc\s*=/i.test(attributes)) return false;
    const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(attributes)?.[1] ?? '';
    return javascriptType.test(type) && /\S/.test(match[2] ?? '');
  });
  if (blocks.length === 0) return null;
  const chars = text.replace(/[^\n]/g, ' ').split('');
  for (const block of blocks) {
    const body = block[2] ?? '';
    const start = (block.index ?? 0) + block[0].indexOf('>') + 1;
    const script = body.replace(/\.ejs$/i.test(path) ? ejsTag : anyTag, (tag: string, ejsOutput?: string, mustacheOutput?: string) => {
      const output = tag.startsWith('<%') ? ejsOutput !== '' : tag.startsWith('{{');
      const blank = tag.replace(/[^\n]/g, ' ');
      return output || mustacheOutput ? `0${blank.slice(1)}` : blank;
    });
    for (let index = 0; index < script.length; index += 1) chars[start + index] = script[index] as string;
  }
  return chars.join('');
}
