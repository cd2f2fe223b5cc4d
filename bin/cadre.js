#!/usr/bin/env node
// cadre's entry point: answers --version before loading anything else, then starts the CLI from dist/ (its start path
// is bundled into dist/cadre.mjs; with CADRE_DEBUG set, stack traces name the source files through its source map).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  if (process.env.CADRE_DEBUG) process.setSourceMapsEnabled(true);
  let entry;
  try {
    entry = await import('../dist/cadre.mjs');
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && /dist\/(?:cadre\.mjs|src\/)/.test(String(error.message))) {
      process.stderr.write('✖ cadre is not built yet.\n  → Run `npm install` (it builds cadre) or `npm run build` in the cadre folder.\n');
      process.exit(1);
    }
    throw error;
  }
  process.exitCode = await entry.main(process.argv);
}
