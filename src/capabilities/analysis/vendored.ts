// Third-party libraries copied into a project (jquery.js with its licence banner, <script src="…/jquery-3.2.1.min.js">): not the project's code, but versions to check against advisories.
/** `loaded`: named by a page's <script src> (a CDN URL or a local path) rather than found as a copied file. */
export type VendoredLibrary = { name: string; version: string; line: number; loaded?: boolean };

/** Banner names → npm package names, where they differ from the lowercased, hyphenated name. */
const packageNames: Record<string, string> = {
  'jquery ui': 'jquery-ui', 'moment.js': 'moment', 'lo-dash': 'lodash', 'angularjs': 'angular', 'vue.js': 'vue', 'react dom': 'react-dom',
  'chart.js': 'chart.js', 'highlight.js': 'highlight.js', 'socket.io': 'socket.io-client', 'isotope packaged': 'isotope-layout', 'owl carousel': 'owl.carousel',
};

/** CDN library folders (cdnjs, Google's hosted libraries) whose name is not the npm package's. */
const cdnNames: Record<string, string> = {
  'twitter-bootstrap': 'bootstrap', 'jqueryui': 'jquery-ui', 'angular.js': 'angular', 'lodash.js': 'lodash', 'underscore.js': 'underscore',
  'handlebars.js': 'handlebars', 'backbone.js': 'backbone', 'ember.js': 'ember-source', 'vue.js': 'vue', 'react-dom.js': 'react-dom',
};

function packageOf(name: string): string {
  const lower = name.trim().toLowerCase();
  return packageNames[lower] ?? cdnNames[lower] ?? lower.replace(/\s+/g, '-');
}

/** The library a script's opening licence banner names (`/*! jQuery v3.2.1 | (c) …`), when the file is a copy of one. */
export function vendoredLibrary(path: string, text: string): VendoredLibrary | null {
  if (!/\.[cm]?js$/.test(path)) return null;
  const banner = /^\s*\/\*[!*]?([\s\S]{0,600}?)\*\//.exec(text)?.[1];
  if (!banner) return null;
  const match = /^[\s*]*(?:@license\s+)?([A-Za-z][\w.]*(?: [A-Za-z][\w.]*)?)\s+(?:v|version\s*:?\s*)?(\d+\.\d+\.\d+(?:-[\w.]+)?)\b/m.exec(banner);
  if (!match?.[1] || !match[2]) return null;
  return { name: packageOf(match[1]), version: match[2], line: 1 };
}

/** Folders of pages' static assets, where copied-in libraries live. */
const assetFolder = /(?:^|\/)(?:public|static|assets|www|wwwroot)\//;
/** Folders that hold other people's code by name. */
const vendorFolder = /(?:^|\/)(?:vendors?|third[-_]?party|bower_components|jspm_packages)\//;

/**
 * A copy of someone else's script that names no package and version (so vendoredLibrary cannot check it), or a minified
 * file: under a vendor folder, named *.min.js, one huge line, or in a static-asset folder opening with a library's banner
 * (`/*! …`, `//! moment.js`, a version or licence line in its first comment).
 */
export function thirdPartyScript(path: string, text: string): 'vendored' | 'minified' | null {
  if (!/\.[cm]?js$/.test(path)) return null;
  if (/[.-]min\.[cm]?js$/.test(path)) return 'minified';
  const longest = text.split('\n', 200).reduce((most, line) => (line.length > most.length ? line : most), '');
  // Minifiers drop the spaces too: one long line of generated source with spaces is not a minified build.
  const spaces = longest.length > 2000 ? (longest.match(/\s/g)?.length ?? 0) / longest.length : 1;
  if (spaces < 0.1 && text.length / Math.max(1, text.split('\n').length) > 300) return 'minified';
  if (vendorFolder.test(path)) return 'vendored';
  if (!assetFolder.test(path) || /(?:^|\/)src\//.test(path)) return null;
  const opening = /^\s*((?:\/\/[^\n]*\n\s*)+|\/\*[\s\S]{0,1200}?\*\/)/.exec(text)?.[1] ?? '';
  return /^\s*(?:\/\*!|\/\/!)|\bv(?:ersion)?\s*:?\s*\d+\.\d+\.\d+|@license\b|\bcopyright\b|\(c\)\s*\d{4}|\bMIT License\b|\blicensed under\b/i.test(opening) ? 'vendored' : null;
}

/** Code a tool wrote (route trees, GraphQL and Prisma clients): named *.gen.* / *.generated.*, or saying so in its first lines. */
export function isGenerated(path: string, text: string): boolean {
  return /\.(?:gen|generated)\.[cm]?[jt]sx?$|(?:^|\/)__generated__\//.test(path) || /@generated\b|\bauto-?generated\b|\bdo not edit\b|this file (?:is|was|has been) (?:automatically )?generated/i.test(text.slice(0, 600));
}

const scriptSource = /<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi;
/** `jquery-3.2.1.min.js`, `jquery@3.2.1/dist/jquery.min.js`, `…/ajax/libs/jquery/1.12.4/jquery.min.js`, `@scope/name@1.2.3/…`. */
const versionedScript = /(?:^|\/)((?:@[\w.-]+\/)?[a-z][\w.-]*?)(?:[-@/]v?(\d+\.\d+\.\d+(?:-[\w.]+)?))(?:\/[\w./-]*)?(?:\.min)?\.js(?:[?#].*)?$/i;
/** `jquery.min.js?ver=3.2.1` (WordPress and other asset pipelines put the version in the query). */
const queryVersionedScript = /(?:^|\/)([a-z][\w-]*(?:\.js)?)(?:\.min)?\.js\?(?:[^#]*&)?v(?:er(?:sion)?)?=(\d+\.\d+\.\d+)(?:[&#].*)?$/i;

/** The library and version a script URL names, when it names one. */
export function scriptUrlLibrary(source: string): { name: string; version: string } | null {
  const versioned = versionedScript.exec(source) ?? queryVersionedScript.exec(source);
  if (!versioned?.[1] || !versioned[2]) return null;
  return { name: packageOf(versioned[1].replace(/\.min$/, '')), version: versioned[2] };
}

/** Libraries a page (HTML or a server template) loads with a version in the script's URL. */
export function scriptTagLibraries(text: string, position: (offset: number) => { line: number }): VendoredLibrary[] {
  const found: VendoredLibrary[] = [];
  for (const match of text.matchAll(scriptSource)) {
    const library = scriptUrlLibrary(match[1] ?? '');
    if (library) found.push({ ...library, line: position(match.index ?? 0).line, loaded: true });
  }
  return found;
}
