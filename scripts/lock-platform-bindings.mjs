#!/usr/bin/env node
// Completes package-lock.json with the platform bindings of native packages (oxc-parser, oxlint) that the registry this
// lockfile was resolved against does not serve: npm ci refuses a lock whose optionalDependencies have no entries, while the
// bindings for other platforms are skipped anyway by their os/cpu/libc fields. Run after `npm install` changes the lock.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
const packages = lock.packages;

/** os, cpu and libc of a binding, from the napi-rs naming scheme: binding-<os>-<cpu>[-<abi>]. */
function platformOf(name) {
  const match = /binding-(android|darwin|freebsd|linux|openharmony|win32|wasm32)-([a-z0-9]+)(?:-([a-z]+))?$/.exec(name);
  if (!match) return null;
  const [, os, cpu, abi] = match;
  if (os === 'wasm32') return { cpu: ['wasm32'] };
  const platform = { os: [os], cpu: [cpu] };
  if (os === 'linux' && abi) platform.libc = [abi.startsWith('musl') ? 'musl' : 'glibc'];
  return platform;
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dependency, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${dependency}`;
    if (packages[nested] || packages[`node_modules/${dependency}`]) continue;
    const platform = platformOf(dependency);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[`node_modules/${dependency}`] = { version, ...platform, license: entry.license, optional: true };
    added += 1;
  }
}
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform binding entr${added === 1 ? 'y' : 'ies'} added\n`);
