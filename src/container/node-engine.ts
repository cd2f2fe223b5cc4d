// The Node a project asks for (package.json `engines.node`, `.nvmrc`, `.node-version`) against the container's, and whether cadre can install it.
import { join } from 'node:path';
import semver from 'semver';
import { readSmall } from './package-manager.js';

export interface NodeRequirement {
  source: 'package.json engines.node' | '.nvmrc' | '.node-version';
  /** As the project wrote it (trimmed, at most 100 characters). */
  range: string;
}

export interface NodeCheck extends NodeRequirement {
  /** Undefined when the value is no semver range (an alias such as `lts/*` or `node`). */
  satisfied?: boolean;
}

/** What /vm-setup-dev does about the project's Node: nothing, install `range`, or explain why it keeps the image's. */
export type NodePlan = { action: 'none' } | { action: 'install'; range: string; source: NodeRequirement['source'] } | { action: 'keep'; reason: string };

const maxLength = 100;

/** The project's Node requirements, from the workspace on the host (untrusted files: links and large files are skipped). */
export async function nodeRequirements(dir: string): Promise<NodeRequirement[]> {
  const found: NodeRequirement[] = [];
  const manifest = await readSmall(join(dir, 'package.json'), 1024 ** 2);
  let engines: unknown;
  try {
    engines = manifest === undefined ? undefined : (JSON.parse(manifest) as { engines?: { node?: unknown } }).engines?.node;
  } catch {
    engines = undefined;
  }
  if (typeof engines === 'string' && engines.trim()) found.push({ source: 'package.json engines.node', range: engines.trim().slice(0, maxLength) });
  for (const source of ['.nvmrc', '.node-version'] as const) {
    const text = await readSmall(join(dir, source), 4096);
    const line = text?.split(/\r?\n/).map((entry) => entry.replace(/#.*/, '').trim()).find(Boolean);
    if (line) found.push({ source, range: line.replace(/^v(?=\d)/, '').slice(0, maxLength) });
  }
  return found;
}

const asRange = (value: string): string | undefined => semver.validRange(value) ?? undefined;

/** Each requirement against the container's Node version (`v22.23.3` or `22.23.3`). */
export function checkNode(requirements: readonly NodeRequirement[], version: string): NodeCheck[] {
  const have = semver.coerce(version)?.version;
  return requirements.map((requirement) => {
    const range = asRange(requirement.range);
    return range && have ? { ...requirement, satisfied: semver.satisfies(have, range) } : { ...requirement };
  });
}

/**
 * What to do about unmet requirements. The version files (`.nvmrc`, `.node-version`: the Node the developers run) come
 * before `engines`. A Node that npm itself cannot run on (outside `npmEngines`, npm's own `engines.node`) is not installed:
 * it would sit first on PATH and break npm in the container.
 */
export function planNode(checks: readonly NodeCheck[], npmEngines: string): NodePlan {
  const unmet = checks.filter((check) => check.satisfied === false);
  if (unmet.length === 0) return { action: 'none' };
  const target = unmet.find((check) => check.source !== 'package.json engines.node') ?? unmet[0]!;
  const range = asRange(target.range)!;
  const npmRange = asRange(npmEngines);
  if (npmRange && !semver.intersects(range, npmRange)) {
    return { action: 'keep', reason: `${target.source} asks for Node ${target.range}, but the container's npm needs Node ${npmEngines}: a Node that old would break npm, so the image's Node stays (the project may still work on it)` };
  }
  return { action: 'install', range: target.range, source: target.source };
}
