// Path confinement and the read/write permission globs of universal-agent (deny wins; defaults always apply).
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';

export interface AccessRule {
  allow: string[];
  deny: string[];
}

/** The shape of `config.permissions`. */
export interface PermissionRules {
  read: AccessRule;
  write: AccessRule;
}

export type Access = 'read' | 'write';

/** Denied whatever the config says: secrets, the repository's internals, private keys, cadre's own sessions and undo records. */
export const builtInDeny: Record<Access, string[]> = {
  read: ['**/.env', '**/.env.*', '.git', '.git/**', '**/*.pem', '**/*.key', '**/*.p12', '**/id_rsa*', '**/id_ecdsa*', '**/id_ed25519*', '.cadre/**'],
  write: ['**/.env', '**/.env.*', '.git', '.git/**', '**/*.pem', '**/*.key', '**/*.p12', '**/id_rsa*', '**/id_ecdsa*', '**/id_ed25519*', '.cadre/**'],
};

export const defaultRules: PermissionRules = { read: { allow: ['**'], deny: [] }, write: { allow: ['**'], deny: [] } };

export type PathDecision = { ok: true; relPath: string; absPath: string } | { ok: false; relPath: string; reason: string };

export interface Permissions {
  readonly root: string;
  /** Resolves a path the model gave and decides whether `access` to it is allowed. */
  check(path: string, access: Access): PathDecision;
}

const toPosix = (path: string) => path.split(sep).join('/');

function realpathOfNearest(path: string): string {
  for (let current = path; ; current = dirname(current)) {
    try {
      return resolve(realpathSync(current), relative(current, path));
    } catch {
      if (dirname(current) === current) return path;
    }
  }
}

function matcher(patterns: string[]): (path: string) => string | undefined {
  const compiled = patterns.map((pattern) => ({ pattern, test: picomatch(pattern, { dot: true }) }));
  return (path) => compiled.find((entry) => entry.test(path))?.pattern;
}

export function createPermissions(root: string, rules: PermissionRules = defaultRules): Permissions {
  const realRoot = realpathSync(root);
  const matchers = {
    read: { deny: matcher([...builtInDeny.read, ...rules.read.deny]), allow: matcher(rules.read.allow) },
    write: { deny: matcher([...builtInDeny.write, ...rules.write.deny]), allow: matcher(rules.write.allow) },
  };
  return {
    root: realRoot,
    check(path, access) {
      const absPath = resolve(realRoot, path);
      const relPath = toPosix(relative(realRoot, absPath)) || '.';
      const outside = (rel: string) => rel === '..' || rel.startsWith('../') || isAbsolute(rel);
      if (outside(relPath)) return { ok: false, relPath: path, reason: `${path} is outside the project` };
      // A symlink inside the project must not lead out of it.
      if (outside(toPosix(relative(realRoot, realpathOfNearest(absPath))))) {
        return { ok: false, relPath, reason: `${relPath} leads outside the project through a symbolic link` };
      }
      if (relPath === '.') return { ok: true, relPath, absPath };
      const denied = matchers[access].deny(relPath);
      if (denied) return { ok: false, relPath, reason: `${access} access to ${relPath} is denied (pattern ${denied})` };
      if (!matchers[access].allow(relPath)) return { ok: false, relPath, reason: `${access} access to ${relPath} is not in the allowed patterns` };
      return { ok: true, relPath, absPath };
    },
  };
}
