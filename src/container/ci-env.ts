// The environment a project's own CI sets for its tests (GitHub Actions `env:` of its test jobs, a time-zone action's zone), read from hostile files.
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { DockerClient } from './docker-client.js';

/** A variable the CI sets, and where: the workflow file and the level (workflow, job or step). */
export interface CiVariable { name: string; value: string; file: string }

const maxFiles = 20;
const maxFileBytes = 256 * 1024;
const maxValueLength = 200;
const namePattern = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** A value the hint can quote in `--env "A=1,B=2"`: no comma, quote, backslash, expression or control character. */
const safeValue = /^[^,"'`\\$\p{Cc}]*$/u;
/** A command that runs the tests: `npm test`, `yarn test`, `pnpm run test:unit`, `npx jest`, `vitest`, `mocha`... */
const testCommand = /\b(test|tests|jest|vitest|mocha|ava|tap)\b/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one regular file (no link followed, none larger than the bound); undefined when it is anything else. */
async function readBounded(path: string): Promise<string | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > maxFileBytes) return undefined;
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(maxFileBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead > maxFileBytes ? undefined : buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A YAML scalar as the runner sets it in the environment: a string as written, a number or boolean as its text. */
const envText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' ? String(value) : undefined;

/** The usable entries of an `env:` mapping: names in env-var syntax, scalar values, no `${{ }}` expression or secret. */
function envEntries(env: unknown): [string, string][] {
  if (!isRecord(env)) return [];
  return Object.entries(env).flatMap(([name, raw]): [string, string][] => {
    const value = envText(raw);
    return value !== undefined && namePattern.test(name) && value.length <= maxValueLength && !value.includes('${{') && !/secrets\./i.test(value) && safeValue.test(value)
      ? [[name, value]] : [];
  });
}

/** Whether a workflow step runs the project's tests (`run: npm test`, `npx jest`...). */
export const runsTests = (step: unknown): boolean => isRecord(step) && typeof step.run === 'string' && testCommand.test(step.run);

/** Actions that set the runner's time zone, and the input naming it on Linux. */
const timezoneActions: ReadonlyArray<{ action: string; input: string }> = [
  { action: 'zcong1993/setup-timezone', input: 'timezone' },
  { action: 'szenius/set-timezone', input: 'timezoneLinux' },
  { action: 'mathrobin/timezone-action', input: 'timezoneLinux' },
];
const zonePattern = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;
/** Zones a container already runs in (it has no TZ and no /etc/localtime of its own): nothing to offer. */
const utcZones = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Universal', 'Zulu']);

/** The zone a step sets with a time-zone action (`uses: szenius/set-timezone@v2`, `with: timezoneLinux: Europe/Berlin`): TZ for what runs after it. */
function timezoneOfStep(step: unknown): [string, string][] {
  if (!isRecord(step) || typeof step.uses !== 'string' || !isRecord(step.with)) return [];
  const used = step.uses.split('@', 1)[0]?.toLowerCase();
  const known = timezoneActions.find((entry) => entry.action === used);
  const zone = known ? step.with[known.input] : undefined;
  return typeof zone === 'string' && zonePattern.test(zone) && !utcZones.has(zone) ? [['TZ', zone]] : [];
}

/**
 * The variables one workflow's test jobs see when they run their tests: the zone a time-zone action set before them, then the
 * env of the workflow, the job and the test steps (an explicit TZ in env wins over the runner's zone, as it does on the runner).
 */
export function ciEnvOfWorkflow(text: string, file: string): CiVariable[] {
  const doc = parseWorkflow(text);
  if (!doc) return [];
  const found = new Map<string, string>();
  for (const job of Object.values(doc.jobs)) {
    if (!isRecord(job) || !Array.isArray(job.steps)) continue;
    const firstTest = job.steps.findIndex(runsTests);
    if (firstTest < 0) continue;
    const testSteps = job.steps.filter(runsTests);
    const zone = job.steps.slice(0, firstTest).flatMap(timezoneOfStep);
    for (const [name, value] of [...zone, ...envEntries(doc.env), ...envEntries(job.env), ...testSteps.flatMap((step) => envEntries((step as Record<string, unknown>).env))]) found.set(name, value);
  }
  return [...found].map(([name, value]) => ({ name, value, file }));
}

/** A workflow's parsed content with a `jobs` mapping; undefined for anything else (broken YAML, an alias bomb). */
export function parseWorkflow(text: string): { jobs: Record<string, unknown>; env?: unknown } | undefined {
  try {
    // YAML 1.2 (no `yes` → true), no aliases expanded beyond a small bound: a billion-laughs file is refused, not expanded.
    const parsed = parseDocument(text, { version: '1.2', uniqueKeys: false });
    if (parsed.errors.length) return undefined;
    const doc: unknown = parsed.toJS({ maxAliasCount: 50 });
    return isRecord(doc) && isRecord(doc.jobs) ? doc as { jobs: Record<string, unknown>; env?: unknown } : undefined;
  } catch {
    return undefined;
  }
}

/** The texts of the workspace's `.github/workflows/*.yml`, by name (bounded in number and size, no link followed). */
export async function readWorkflowTexts(workspaceDir: string): Promise<Array<{ file: string; text: string }>> {
  const dir = join(workspaceDir, '.github', 'workflows');
  for (const part of [join(workspaceDir, '.github'), dir]) {
    const info = await lstat(part).catch(() => undefined);
    if (!info?.isDirectory()) return [];
  }
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => /^[\w.-]+\.ya?ml$/.test(name)).sort().slice(0, maxFiles);
  const texts: Array<{ file: string; text: string }> = [];
  for (const name of names) {
    const text = await readBounded(join(dir, name));
    if (text !== undefined) texts.push({ file: `.github/workflows/${name}`, text });
  }
  return texts;
}

/** The variables the workspace's `.github/workflows/*.yml` set for their tests (a later file's value for a name wins). */
export async function readCiEnv(workspaceDir: string): Promise<CiVariable[]> {
  const byName = new Map<string, CiVariable>();
  for (const { file, text } of await readWorkflowTexts(workspaceDir)) {
    for (const variable of ciEnvOfWorkflow(text, file)) byName.set(variable.name, variable);
  }
  return [...byName.values()];
}

/**
 * One line offering the CI's variables this container's commands lack, with the exact command; undefined when none is missing.
 * Never applied here: the person decides.
 */
export function ciEnvHint(variables: CiVariable[], containerEnv: Record<string, string | undefined>, containerId: string): string | undefined {
  const missing = variables.filter((variable) => containerEnv[variable.name] === undefined);
  if (!missing.length) return undefined;
  const pairs = missing.map(({ name, value }) => `${name}=${value}`);
  const files = [...new Set(missing.map((variable) => variable.file))].join(', ');
  return `The project's CI (${files}) sets ${pairs.join(' ')} for its tests; this container has no ${missing.map(({ name }) => name).join(', ')}: ` +
    `/vm-config --env "${pairs.join(',')}" --container ${containerId} if its tests depend on ${missing.length > 1 ? 'them' : 'it'}`;
}

/** The hint for one container: the CI's variables against its configured env and its image's own; undefined when none is missing. */
export async function ciEnvNote(options: { docker: DockerClient; dockerId: string; workspaceDir: string; env: Record<string, string>; containerId: string }): Promise<string | undefined> {
  const variables = await readCiEnv(options.workspaceDir);
  if (!variables.length) return undefined;
  const imageEnv = (await options.docker.getContainer(options.dockerId).inspect().catch(() => undefined))?.Config.Env ?? [];
  const fromImage = Object.fromEntries(imageEnv.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  return ciEnvHint(variables, { ...fromImage, ...options.env }, options.containerId);
}
