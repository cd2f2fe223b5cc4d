// Walks project files as git would see them: .gitignore files at every level respected; .git and cadre's .cadre skipped.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

interface Scope {
  base: string;
  rules: Ignore;
}

async function scopeFor(root: string, dir: string): Promise<Scope | null> {
  try {
    const text = await readFile(join(root, dir, '.gitignore'), 'utf8');
    return { base: dir, rules: ignore().add(text) };
  } catch {
    return null;
  }
}

function ignoredBy(scopes: Scope[], relPath: string, isDir: boolean): boolean {
  return scopes.some((scope) => {
    const local = scope.base ? relPath.slice(scope.base.length + 1) : relPath;
    return scope.rules.ignores(isDir ? `${local}/` : local);
  });
}

/** Lists files under `start` (project-relative, '' for the root), up to `limit` of them. */
export async function walkProject(root: string, start = '', limit = 20_000): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  const parentScopes: Scope[] = [];
  const parts = start ? start.split('/') : [];
  for (let i = 0; i < parts.length; i += 1) {
    const scope = await scopeFor(root, parts.slice(0, i).join('/'));
    if (scope) parentScopes.push(scope);
  }
  const visit = async (dir: string, scopes: Scope[]): Promise<boolean> => {
    const own = await scopeFor(root, dir);
    const active = own ? [...scopes, own] : scopes;
    let entries;
    try {
      entries = await readdir(join(root, dir), { withFileTypes: true });
    } catch {
      return true;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const relPath = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.name === '.git' || (entry.name === '.cadre' && !dir) || ignoredBy(active, relPath, entry.isDirectory())) continue;
      if (entry.isDirectory()) {
        if (!(await visit(relPath, active))) return false;
      } else if (entry.isFile()) {
        if (files.length >= limit) return false;
        files.push(relPath);
      }
    }
    return true;
  };
  const complete = await visit(start === '.' ? '' : start, parentScopes);
  return { files, truncated: !complete };
}
