// Libraries a page loads by a versioned script URL (CDNs, local copies, server templates) are checked against the advisories.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { scriptTagLibraries, scriptUrlLibrary } from '../../../src/capabilities/analysis/vendored.js';

describe('scriptUrlLibrary', () => {
  it.each([
    ['vendor/jquery-3.2.1.min.js', 'jquery', '3.2.1'],
    ['https://cdn.jsdelivr.net/npm/jquery@3.2.1/dist/jquery.min.js', 'jquery', '3.2.1'],
    ['https://cdnjs.cloudflare.com/ajax/libs/jquery/1.12.4/jquery.min.js', 'jquery', '1.12.4'],
    ['https://cdnjs.cloudflare.com/ajax/libs/twitter-bootstrap/4.1.0/js/bootstrap.min.js', 'bootstrap', '4.1.0'],
    ['https://ajax.googleapis.com/ajax/libs/angular.js/1.5.8/angular.min.js', 'angular', '1.5.8'],
    ['https://ajax.googleapis.com/ajax/libs/jqueryui/1.12.1/jquery-ui.min.js', 'jquery-ui', '1.12.1'],
    ['//cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.4/lodash.min.js', 'lodash', '4.17.4'],
    ['https://unpkg.com/@angular/core@8.0.0/bundles/core.umd.js', '@angular/core', '8.0.0'],
    ['/wp-includes/js/jquery/jquery.min.js?ver=3.2.1', 'jquery', '3.2.1'],
  ])('%s names %s %s', (url, name, version) => {
    expect(scriptUrlLibrary(url)).toEqual({ name, version });
  });

  it.each(['/src/main.tsx', 'assets/js/main.js', 'https://www.googletagmanager.com/gtag/js?id=UA-1', '/js/app.bundle.js?v=12'])('%s names no library', (url) => {
    expect(scriptUrlLibrary(url)).toBeNull();
  });

  it('reads every script tag of a page with its line, marked as loaded', () => {
    const page = '<html>\n<head>\n<script src="https://code.jquery.com/jquery-3.2.1.min.js"></script>\n</head>\n<script type="module" src="/src/main.tsx"></script>\n';
    expect(scriptTagLibraries(page, (offset) => ({ line: page.slice(0, offset).split('\n').length }))).toEqual([{ name: 'jquery', version: '3.2.1', line: 3, loaded: true }]);
  });
});

describe('pages in a project', () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'cadre-pages-'));
  });
  afterEach(() => rm(cwd, { recursive: true, force: true }));

  it('reports an old jQuery loaded from a CDN by an HTML page and by an EJS layout, not a patched one', async () => {
    await writeFile(join(cwd, 'package.json'), JSON.stringify({ name: 'site', version: '1.0.0' }));
    await mkdir(join(cwd, 'views'));
    await writeFile(join(cwd, 'index.html'), '<!doctype html>\n<title>x</title>\n<script src="https://cdnjs.cloudflare.com/ajax/libs/jquery/3.2.1/jquery.min.js"></script>\n');
    await writeFile(join(cwd, 'views', 'layout.ejs'), '<html>\n<body><%- body %>\n<script src="https://cdn.jsdelivr.net/npm/jquery@1.11.1/dist/jquery.min.js"></script>\n<script src="https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"></script>\n</body></html>\n');
    const report = await runAnalysis('security', { cwd, cache: false });
    const found = report.findings.filter((finding) => finding.category === 'dependencies').map((finding) => `${finding.file}:${finding.line} ${finding.message.split(':')[0]}`).sort();
    expect(found).toEqual(['index.html:3 jquery@3.2.1 is loaded by this page', 'views/layout.ejs:3 jquery@1.11.1 is loaded by this page']);
    const jquery = report.findings.find((finding) => finding.file === 'index.html');
    expect(jquery?.message).toContain('CVE-2020-11022');
    expect(jquery?.fix).toBe('Upgrade jquery to 3.5.0 or later.');
  });
});
