// How an installed package is reached: the dependency paths from package.json to it, runtime and development apart.
import type { InstalledPackage } from '../view.js';

/** Paths counted up to this bound: a package deep in a large tree is reached by millions of them. */
export const pathBound = 1_000_000;

export type Reach = {
  /** Paths from a runtime (dependencies, optionalDependencies) entry of package.json, at most pathBound. */
  runtime: number;
  /** Paths from a devDependencies entry, at most pathBound. */
  dev: number;
  /** The direct dependencies the paths start at, by name. */
  through: string[];
};

/**
 * The dependency graph over `name@version` (all copies of one version are one node), from the lockfile's `requires`;
 * null when the lockfile does not say what depends on what (then the lockfile's own `dev` flags are all there is).
 */
export function dependencyGraph(installed: readonly InstalledPackage[], roots: { runtime: ReadonlyMap<string, string>; dev: ReadonlyMap<string, string> }): ((key: string) => Reach) | null {
  if (!installed.some((item) => item.requires !== undefined)) return null;
  const parents = new Map<string, Set<string>>();
  for (const item of installed) {
    for (const child of item.requires ?? []) {
      const set = parents.get(child) ?? new Set<string>();
      set.add(`${item.name}@${item.version}`);
      parents.set(child, set);
    }
  }
  /** Direct dependency name by the node it resolves to. */
  const rootNames = (which: ReadonlyMap<string, string>): Map<string, string[]> => {
    const byKey = new Map<string, string[]>();
    for (const [name, key] of which) byKey.set(key, [...(byKey.get(key) ?? []), name]);
    return byKey;
  };
  const runtimeRoots = rootNames(roots.runtime);
  const devRoots = rootNames(roots.dev);
  const count = (rootsOf: Map<string, string[]>): ((key: string) => number) => {
    const memo = new Map<string, number>();
    const visiting = new Set<string>();
    // Iterative post-order walk up the parents: a deep chain never grows the native stack.
    return (start) => {
      const stack: string[] = [start];
      while (stack.length > 0) {
        const key = stack[stack.length - 1] as string;
        if (memo.has(key)) {
          stack.pop();
          continue;
        }
        if (!visiting.has(key)) {
          visiting.add(key);
          for (const parent of parents.get(key) ?? []) if (!memo.has(parent) && !visiting.has(parent)) stack.push(parent);
          continue;
        }
        stack.pop();
        visiting.delete(key);
        // A parent still being visited closes a cycle: the paths through it are not new paths.
        let total = rootsOf.get(key)?.length ?? 0;
        for (const parent of parents.get(key) ?? []) total += memo.get(parent) ?? 0;
        memo.set(key, Math.min(total, pathBound));
      }
      return memo.get(start) ?? 0;
    };
  };
  const runtime = count(runtimeRoots);
  const dev = count(devRoots);
  const through = (start: string): string[] => {
    const seen = new Set<string>([start]);
    const queue = [start];
    const names = new Set<string>();
    for (let next = 0; next < queue.length; next += 1) {
      const key = queue[next] as string;
      for (const name of [...runtimeRoots.get(key) ?? [], ...devRoots.get(key) ?? []]) names.add(name);
      for (const parent of parents.get(key) ?? []) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        queue.push(parent);
      }
    }
    return [...names].sort();
  };
  return (key) => ({ runtime: runtime(key), dev: dev(key), through: through(key) });
}
