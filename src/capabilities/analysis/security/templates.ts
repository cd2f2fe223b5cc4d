// XSS in templates: unescaped output forms (EJS, Pug, Handlebars, Nunjucks/Swig, Vue, Svelte), autoescaping turned off, and escaped output in URL attributes and inline scripts, where HTML escaping does not help.
import { findingAt } from '../source.js';
import type { Finding, SourceFile } from '../types.js';
import { xssRules } from './sinks.js';

type TemplateSyntax = { pattern: RegExp; engine: string; safeForm: string };

/**
 * An output of a server-side template judged at project level, once it is known what the views are rendered with:
 * raw output, or escaped output where escaping does not help (a URL attribute, an inline script).
 */
export type TemplateOutput = { expression: string; root: string; line: number; column: number; engine: string; safeForm: string; context?: 'url' | 'script' };

/** Expressions that are safe to output raw: includes, partials, already-rendered bodies, numbers. */
const safeRawOutput = /^\s*(?:include\b|body\b|partial\b|yield\b|block\b|-?\s*include\b|defineContent\b|style\b|script\b)|^[\w.[\]\s]*[+\-*/%]\s*\d+\s*$|^\s*\d+\s*$/;

const rawSyntax: Record<string, TemplateSyntax[]> = {
  ejs: [{ pattern: /<%-([\s\S]*?)[-_]?%>/g, engine: 'EJS', safeForm: '<%= … %>' }],
  pug: [
    { pattern: /!=\s*([^\n]+)/g, engine: 'Pug', safeForm: '= …' },
    { pattern: /!\{([^}\n]+)\}/g, engine: 'Pug', safeForm: '#{…}' },
  ],
  hbs: [{ pattern: /\{\{\{\s*([^}]+?)\s*\}\}\}/g, engine: 'Handlebars', safeForm: '{{ … }}' }],
  njk: [{ pattern: /\{\{([^}]*?\|\s*safe\b[^}]*)\}\}/g, engine: 'Nunjucks', safeForm: '{{ … }} without | safe' }],
  html: [{ pattern: /\{\{\{\s*([^}]+?)\s*\}\}\}/g, engine: 'Handlebars/Mustache', safeForm: '{{ … }}' }],
};
rawSyntax.jade = rawSyntax.pug ?? [];
rawSyntax.handlebars = rawSyntax.hbs ?? [];
rawSyntax.mustache = rawSyntax.hbs ?? [];
rawSyntax.nunjucks = rawSyntax.njk ?? [];
rawSyntax.swig = rawSyntax.njk ?? [];
rawSyntax.twig = rawSyntax.njk ?? [];

/** Escaped output per engine, for the URL-attribute and inline-script contexts. */
const escapedOutput: Record<string, RegExp> = { ejs: /<%=([\s\S]*?)%>/g, hbs: /\{\{(?!\{)\s*([^}]+?)\s*\}\}/g, njk: /\{\{([^}]*?)\}\}/g };
escapedOutput.handlebars = escapedOutput.hbs as RegExp;
escapedOutput.nunjucks = escapedOutput.njk as RegExp;
escapedOutput.swig = escapedOutput.njk as RegExp;
escapedOutput.twig = escapedOutput.njk as RegExp;

const clientSyntax: Record<string, TemplateSyntax> = {
  vue: { pattern: /\sv-html\s*=\s*"([^"]*)"/g, engine: 'Vue', safeForm: '{{ … }} text interpolation' },
  svelte: { pattern: /\{@html\s+([^}]+)\}/g, engine: 'Svelte', safeForm: '{…} text interpolation' },
};

/** Template findings that need no data flow, and the raw outputs to judge at project level. */
export function checkTemplates(file: SourceFile): { findings: Finding[]; outputs: TemplateOutput[] } {
  const extension = extensionOf(file.path);
  const findings: Finding[] = [];
  const outputs: TemplateOutput[] = [];
  const client = clientSyntax[extension];
  if (client) {
    for (const match of file.text.matchAll(client.pattern)) {
      const expression = (match[1] ?? '').trim();
      if (/sanitize|purify|escape/i.test(expression)) continue;
      findings.push(findingAt(file, match.index ?? 0, xssRules.template, { severity: 'Medium', message: `${client.engine} renders "${expression.slice(0, 60)}" as HTML without sanitising it.`, fix: `Use ${client.safeForm}, or sanitise the HTML first (DOMPurify.sanitize).` }));
    }
  }
  for (const syntax of rawSyntax[extension] ?? []) {
    for (const match of file.text.matchAll(syntax.pattern)) {
      const expression = (match[1] ?? '').trim();
      if (!expression || safeRawOutput.test(expression) || /^\s*['"][^'"]*['"]\s*$/.test(expression) || /sanitize|purify|escape/i.test(expression)) continue;
      // Pug's `!=` also appears in comparisons inside code lines; only the output forms count.
      if (syntax.engine === 'Pug' && match[0].startsWith('!=') && /^\s*-|\(\s*[^)]*$/.test(lineBefore(file.text, match.index ?? 0))) continue;
      const { line, column } = file.position(match.index ?? 0);
      outputs.push({ expression, root: /^[A-Za-z_$][\w$]*/.exec(expression.replace(/\|.*$/, '').trim())?.[0] ?? expression, line, column, engine: syntax.engine, safeForm: syntax.safeForm });
    }
  }
  if (/\{%\s*autoescape\s+false\s*%\}/.test(file.text)) {
    findings.push(findingAt(file, file.text.search(/\{%\s*autoescape\s+false\s*%\}/), xssRules.template, { severity: 'High', message: 'Autoescaping is turned off for this block: every value in it is output as HTML.', fix: 'Keep autoescaping on and mark only sanitised values as safe.' }));
  }
  outputs.push(...contextOutputs(file, extension));
  return { findings, outputs };
}

/** `href="<%= url %>"` takes javascript: URLs, and `<script>…<%= value %>…</script>` runs in JavaScript, where HTML escaping does not apply. */
function contextOutputs(file: SourceFile, extension: string): TemplateOutput[] {
  const pattern = escapedOutput[extension];
  if (!pattern) return [];
  const outputs: TemplateOutput[] = [];
  const output = (index: number, expression: string, context: 'url' | 'script'): TemplateOutput => {
    const { line, column } = file.position(index);
    const root = /^[A-Za-z_$][\w$]*/.exec(expression.replace(/\|.*$/, '').trim())?.[0] ?? expression;
    return context === 'url'
      ? { expression, root, line, column, engine: 'template', context, safeForm: 'an http(s) URL checked on the server (escaping leaves javascript: URLs working)' }
      : { expression, root, line, column, engine: 'template', context, safeForm: 'JSON in a data attribute or a JSON script block (HTML escaping does not protect JavaScript)' };
  };
  for (const match of file.text.matchAll(new RegExp(pattern.source, 'g'))) {
    const index = match.index ?? 0;
    const before = file.text.slice(Math.max(0, index - 400), index);
    const expression = (match[1] ?? '').trim();
    if (/^(?:json|JSON\.stringify|encodeURIComponent)\b|\|\s*(?:dump|json|tojson)\b/.test(expression)) continue;
    if (/\s(?:href|action|formaction|xlink:href)\s*=\s*["']$/i.test(before)) outputs.push(output(index, expression, 'url'));
    else if (/<script\b[^>]*>(?![\s\S]*<\/script>)[\s\S]*$/i.test(before)) outputs.push(output(index, expression, 'script'));
  }
  return outputs;
}

function extensionOf(path: string): string {
  return /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
}

function lineBefore(text: string, offset: number): string {
  return text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset);
}
