// The inline <script> blocks of .html pages and EJS views are analysed as the browser's JavaScript, with line numbers in the view.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { unpackCorpus } from '../../support/corpus.js';

const range = resolve(import.meta.dirname, '../../fixtures/real/firing-range');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const template = (path: string): string => readFileSync(join(range, path), 'utf8');
/** A page as Firing Range serves it: the payload in place of %%PAYLOAD%% (Templates.replacePayload). */
const page = (base: string, ...payload: string[]): string => template(base).replace('%%PAYLOAD%%', payload.map(template).join(''));

async function domXss(root: string): Promise<string[]> {
  const report = await runAnalysis('security', { cwd: root, cache: false, offline: true });
  return report.findings.filter((finding) => finding.category === 'xss').map((finding) => `${finding.severity} ${finding.file}:${finding.line}`).sort();
}

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cadre-views-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The 1-based line of the first occurrence of a needle. */
const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

describe('inline scripts of HTML pages', () => {
  it("Firing Range's address and postMessage pages: location.hash and message data into document.write and innerHTML are High, at the sink's line", async () => {
    const pages = {
      'pages/address/location.hash/documentwrite.html': page('address/data/address.tmpl', 'address/data/sources/location.hash.tmpl', 'address/data/sinks/documentwrite.tmpl'),
      'pages/address/location.hash/innerHtml.html': page('address/data/address.tmpl', 'address/data/sources/location.hash.tmpl', 'address/data/sinks/innerHtml.tmpl'),
      'pages/dom/toxicdom/postMessage/documentWrite.html': page('dom/data/toxicdom.tmpl', 'dom/data/sources/postMessage/documentWrite.tmpl'),
      'pages/dom/toxicdom/postMessage/innerHtml.html': page('dom/data/toxicdom.tmpl', 'dom/data/sources/postMessage/innerHtml.tmpl'),
    };
    const root = project(pages);
    const at = (path: keyof typeof pages, needle: string): string => `High ${path}:${lineOf(pages[path], needle)}`;
    expect(await domXss(root)).toEqual([
      at('pages/address/location.hash/documentwrite.html', 'document.write(payload)'),
      at('pages/address/location.hash/innerHtml.html', 'divEl.innerHTML'),
      at('pages/dom/toxicdom/postMessage/documentWrite.html', 'document.write('),
      at('pages/dom/toxicdom/postMessage/innerHtml.html', 'div.innerHTML'),
    ].sort());
  });
});

describe('message handlers', () => {
  it("codeql's DomBasedXss/addEventListener.js: message data into document.write is High where CodeQL marks an alert (a bound handler too), and not where the handler checks event.origin", async () => {
    const text = readFileSync(resolve(import.meta.dirname, '../../fixtures/real/codeql-js-security/dom/addEventListener.js'), 'utf8');
    const marked = (mark: RegExp): number[] => text.split('\n').flatMap((line, index) => (mark.test(line) ? [index + 1] : []));
    const root = project({ 'public/js/messages.js': text });
    expect(marked(/\/\/ OK/)).toHaveLength(2);
    expect(await domXss(root)).toEqual(marked(/\/\/ \$ Alert/).map((line) => `High public/js/messages.js:${line}`).sort());
  });
});

describe('client routers as sources', () => {
  it("codeql's DomBasedXss/angular2-client.ts: ActivatedRoute snapshots and Router.url into bypassSecurityTrustHtml are High on 12 of its 15 alert lines", async () => {
    const text = readFileSync(resolve(import.meta.dirname, '../../fixtures/real/codeql-js-security/angular/angular2-client.ts'), 'utf8');
    const alerts = text.split('\n').flatMap((line, index) => (/\/\/ \$ Alert/.test(line) ? [index + 1] : []));
    const root = project({ 'src/app/app.component.ts': text });
    const found = (await domXss(root)).map((entry) => Number(entry.split(':').at(-1)));
    // Every finding is on a marked line; not yet seen: ɵgetDOM().getLocation(), a paramMap.subscribe callback, Renderer2.setProperty.
    expect(found.every((line) => alerts.includes(line))).toBe(true);
    expect(alerts).toHaveLength(15);
    expect(found).toHaveLength(12);
  });
});

describe('inline scripts of EJS views', () => {
  it("vulnerable-node's layout.ejs with Firing Range's postMessage handler in its inline script: found at the view's line; the view alone adds nothing", async () => {
    const vulnerable = unpackCorpus('vulnerable-node');
    cleanups.push(vulnerable.dispose);
    const layout = join(vulnerable.root, 'views', 'layout.ejs');
    const before = await domXss(vulnerable.root);
    const original = readFileSync(layout, 'utf8');
    const handler = template('dom/data/sources/postMessage/innerHtml.tmpl');
    const changed = original.replace('<script>\n\n    var wall', `<script>\n${handler}\n    var wall`);
    expect(changed).not.toBe(original);
    writeFileSync(layout, changed);
    expect(await domXss(vulnerable.root)).toEqual([...before, `High views/layout.ejs:${lineOf(changed, 'div.innerHTML')}`].sort());
  });
});

describe('hostile views', () => {
  // A view from a repository may open scripts and template tags it never closes. A lazy regex searched to the end of the file
  // from each opening (quadratic: these 400 KB took minutes); a forward scan reads it once, and still finds the one real block.
  it('thousands of unclosed <script> tags and template tags: the inline script is still read, at once', async () => {
    const { inlineScriptText } = await import('../../../src/capabilities/analysis/inline-scripts.js');
    const real = '<script>\nvar a = {{ value }} + <%= other %>;\n</script>\n';
    const unclosedTags = `<script>\n${'{{ {% {# <% '.repeat(20_000)}\n</script>\n`;
    const view = `${real}${unclosedTags}${'<script>'.repeat(50_000)}`;
    const text = inlineScriptText('views/page.html', view);
    expect(text?.length).toBe(view.length);
    // Output tags become a number as long as the tag, other tags blanks; what is not script is blank, newlines kept.
    const number = (tag: string): string => '0'.padEnd(tag.length);
    expect(text?.slice(0, real.length)).toBe(`        \nvar a = ${number('{{ value }}')} + ${number('<%= other %>')};\n         \n`);
    expect(inlineScriptText('views/page.ejs', '<script>\nvar b = <%- html %>; <% if (x) { %>go()<% } %>\n</script>')).toBe(
      `        \nvar b = ${number('<%- html %>')}; ${' '.repeat('<% if (x) { %>'.length)}go()${' '.repeat('<% } %>'.length)}\n         `);
  }, 20_000);
});
