// XSS in templates: the unescaped output forms of EJS, Pug, Handlebars, Nunjucks/Swig, Vue and Svelte.
import { findingAt } from '../source.js';
import type { Finding, SourceFile } from '../types.js';
import { xssRules } from './xss.js';

type TemplateSyntax = { pattern: RegExp; engine: string; safeForm: string };

/** Expressions that are safe to output raw: includes, partials, already-rendered bodies. */
const safeRawOutput = /^\s*(?:include\b|body\b|partial\b|yield\b|block\b|-?\s*include\b|defineContent\b|style\b|script\b)/;

const syntaxByExtension: Record<string, TemplateSyntax[]> = {
  ejs: [{ pattern: /<%-([\s\S]*?)[-_]?%>/g, engine: 'EJS', safeForm: '<%= … %>' }],
  pug: [
    { pattern: /!=\s*([^\n]+)/g, engine: 'Pug', safeForm: '= …' },
    { pattern: /!\{([^}\n]+)\}/g, engine: 'Pug', safeForm: '#{…}' },
  ],
  hbs: [{ pattern: /\{\{\{\s*([^}]+?)\s*\}\}\}/g, engine: 'Handlebars', safeForm: '{{ … }}' }],
  njk: [
    { pattern: /\{\{([^}]*?\|\s*safe\b[^}]*)\}\}/g, engine: 'Nunjucks', safeForm: '{{ … }} without | safe' },
    { pattern: /\{%\s*autoescape\s+false\s*%\}()/g, engine: 'Nunjucks', safeForm: 'autoescaping left on' },
  ],
  vue: [{ pattern: /\sv-html\s*=\s*"([^"]*)"/g, engine: 'Vue', safeForm: '{{ … }} text interpolation' }],
  svelte: [{ pattern: /\{@html\s+([^}]+)\}/g, engine: 'Svelte', safeForm: '{…} text interpolation' }],
  html: [{ pattern: /\{\{\{\s*([^}]+?)\s*\}\}\}/g, engine: 'Handlebars/Mustache', safeForm: '{{ … }}' }],
};
syntaxByExtension.jade = syntaxByExtension.pug ?? [];
syntaxByExtension.handlebars = syntaxByExtension.hbs ?? [];
syntaxByExtension.mustache = syntaxByExtension.hbs ?? [];
syntaxByExtension.nunjucks = syntaxByExtension.njk ?? [];
syntaxByExtension.swig = syntaxByExtension.njk ?? [];
syntaxByExtension.twig = syntaxByExtension.njk ?? [];

export function isTemplatePath(path: string): boolean {
  return extensionOf(path) in syntaxByExtension;
}

export function checkTemplates(file: SourceFile): Finding[] {
  const syntaxes = syntaxByExtension[extensionOf(file.path)];
  if (!syntaxes) return [];
  const findings: Finding[] = [];
  for (const syntax of syntaxes) {
    for (const match of file.text.matchAll(syntax.pattern)) {
      const expression = (match[1] ?? '').trim();
      if (safeRawOutput.test(expression) || /^\s*['"][^'"]*['"]\s*$/.test(expression) || /sanitize|purify|escape/i.test(expression)) continue;
      // Pug's `!=` also appears in attribute comparisons inside code lines; only the output forms count.
      if (syntax.engine === 'Pug' && match[0].startsWith('!=') && /^\s*-|\(\s*[^)]*$/.test(lineBefore(file.text, match.index ?? 0))) continue;
      findings.push(findingAt(file, match.index ?? 0, xssRules.template, {
        severity: 'High',
        message: expression
          ? `${syntax.engine} outputs "${expression.slice(0, 60)}" without escaping.`
          : `${syntax.engine} autoescaping is turned off for this block.`,
        fix: `Use ${syntax.safeForm}, or sanitise the HTML before it reaches the template.`,
      }));
    }
  }
  return findings;
}

function extensionOf(path: string): string {
  return /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
}

function lineBefore(text: string, offset: number): string {
  return text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset);
}
