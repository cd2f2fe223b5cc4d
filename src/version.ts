// cadre's version, read once from its package.json (works from src/ under vitest and from dist/ when installed).
import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cadre' && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next one up.
    }
  }
  return '0.0.0';
}

export const cadreVersion = readVersion();
