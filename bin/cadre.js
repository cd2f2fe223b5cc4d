#!/usr/bin/env node
// cadre's entry point: answers --version before loading anything else, then starts the CLI from dist/.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  let entry;
  try {
    entry = await import('../dist/src/cli/main.js');
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/src/cli/main.js')) {
      process.stderr.write('✖ cadre is not built yet.\n  → Run `npm install` (it builds cadre) or `npm run build` in the cadre folder.\n');
      process.exit(1);
    }
    throw error;
  }
  process.exitCode = await entry.main(process.argv);
}
