// Which files each analysis reads, decided without loading the parser or the rules (a warm run answers from the report cache with this alone).
import { isScript } from './kind.js';
import type { AnalysisKind } from './types.js';

/** Server-side templates and component files with markup (EJS, Pug, Handlebars, Nunjucks, Swig, HTML, Vue, Svelte). */
export function isTemplatePath(path: string): boolean {
  return /\.(?:ejs|pug|jade|hbs|handlebars|mustache|njk|nunjucks|swig|twig|html|vue|svelte)$/i.test(path);
}

/** Files that hold credentials rather than code: .env files, private keys, package-manager and database credential files. */
export const secretFiles = /(?:^|\/)\.env(?:\.[\w-]+)*$|\.(?:pem|key|p8|ppk)$|(?:^|\/)(?:\.npmrc|\.netrc|\.pgpass|\.htpasswd|id_(?:rsa|dsa|ecdsa|ed25519))$/;

export type KindFiles = {
  includes: (path: string) => boolean;
  /** File names to list besides the usual source extensions. */
  alsoList?: RegExp;
};

export const kindFiles: Record<AnalysisKind, KindFiles> = {
  quality: { includes: isScript },
  performance: { includes: isScript },
  security: {
    includes: (path) => isScript(path) || isTemplatePath(path) || secretFiles.test(path)
      || (/\.(?:json|ya?ml)$/.test(path) && !/(?:^|\/)(?:package-lock|npm-shrinkwrap|composer-lock)\.json$|(?:^|\/)pnpm-lock\.yaml$/.test(path)),
    alsoList: secretFiles,
  },
};
