#!/usr/bin/env node
// cadre's entry point: answers --version before loading anything else, then starts the CLI from dist/ (its start path
// is bundled into dist/cli/cadre.mjs and its chunks; with CADRE_DEBUG set, stack traces name the source files through
// their source maps).
// The Node check comes first, in syntax any ES-module Node parses (no top-level await, no ?. or ??): an older Node gets
// a message saying what to install, not a syntax error or a stack trace from deep inside a dependency.
import { readFileSync } from 'node:fs';
import nodeModule from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
const args = process.argv.slice(2);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`✖ cadre needs Node.js 20.19 or newer; this is Node.js ${process.versions.node} (${process.execPath}).\n  → Install a current Node.js (nvm install 22, fnm install 22 or your system's package) and run cadre with it.\n`);
  process.exitCode = 1;
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  if (process.env.CADRE_DEBUG) process.setSourceMapsEnabled(true);
  // Node 22.1+ keeps V8's compiled code of cadre's files between runs (in the system's temp folder); Node 20 has no such cache.
  if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache();
  // A promise chain, not top-level await: this file must parse on any Node for the check above to speak.
  import('../dist/cli/cadre.mjs').then(
    (entry) => entry.main(process.argv).then((code) => {
      process.exitCode = code;
    }),
    (error) => {
      if (error && error.code === 'ERR_MODULE_NOT_FOUND' && /dist\/(?:cli|src)\//.test(String(error.message))) {
        process.stderr.write('✖ cadre is not built yet.\n  → Run `npm install` (it builds cadre) or `npm run build` in the cadre folder.\n');
        process.exit(1);
      }
      throw error;
    },
  );
}
