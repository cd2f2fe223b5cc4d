// Helpers for layered config: reading a JSON layer file, walking key paths, merging layers, explaining zod issues.
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';

export type Json = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a JSON object from `file`; undefined when the file does not exist. */
export async function readJsonLayer(file: string): Promise<Json | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CadreError('config.unreadable', `Cannot read config file ${file}: ${(error as Error).message}`, {
      remedy: 'Check the file permissions, or remove the file.',
      cause: error,
      exitCode: exitCodes.usage,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const { line, column } = syntaxErrorLocation(text, (error as Error).message);
    throw new CadreError('config.invalid', `Invalid JSON in config file ${file} at line ${line}, column ${column}: ${(error as Error).message}`, {
      remedy: `Fix the JSON syntax at ${file}:${line}:${column}.`,
      cause: error,
      exitCode: exitCodes.usage,
    });
  }
  if (!isPlainObject(parsed)) {
    throw new CadreError('config.invalid', `Invalid config in ${file}: the file must hold a JSON object ({ … }).`, {
      remedy: `Make ${file} a JSON object, e.g. { "model": { "provider": "offline" } }.`,
      exitCode: exitCodes.usage,
    });
  }
  return parsed;
}

/** 1-based line and column of a JSON.parse error, from the position V8 reports (or the end of the text). */
export function syntaxErrorLocation(text: string, message: string): { line: number; column: number } {
  const explicit = /line (\d+) column (\d+)/.exec(message);
  if (explicit) return { line: Number(explicit[1]), column: Number(explicit[2]) };
  const position = /position (\d+)/.exec(message);
  const offset = position ? Math.min(Number(position[1]), text.length) : text.length;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { line, column };
}

/**
 * Leaf key paths of a layer: primitives, arrays and empty objects are leaves; objects
 * (including records such as vm.env) are walked.
 */
export function leafPaths(value: Json, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (isPlainObject(child) && Object.keys(child).length > 0) paths.push(...leafPaths(child, path));
    else if (child !== undefined) paths.push(path);
  }
  return paths;
}

export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

export function setPath(target: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = target;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (!isPlainObject(next)) current[part] = {};
    current = current[part] as Json;
  }
  current[parts[parts.length - 1] as string] = value;
}

/**
 * Merges `upper` over `lower`: objects merge key by key, other values replace, except
 * the keys in `unionKeys` whose arrays add up (deny lists must never shrink by layering).
 * Undefined values (unset flags) leave the lower value in place.
 */
export function mergeLayer(lower: Json, upper: Json, unionKeys: readonly string[], prefix = ''): Json {
  const merged: Json = { ...lower };
  for (const [key, value] of Object.entries(upper)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const below = merged[key];
    if (value === undefined) continue;
    if (isPlainObject(value) && isPlainObject(below)) merged[key] = mergeLayer(below, value, unionKeys, path);
    else if (unionKeys.includes(path) && Array.isArray(value) && Array.isArray(below)) merged[key] = [...new Set([...below, ...value])];
    else merged[key] = value;
  }
  return merged;
}

/** The object schema (if any) at a key path, unwrapping defaults and optionals. */
export function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const part of path) {
    const shape = objectShape(current);
    if (shape === undefined) return undefined;
    current = shape[String(part)];
    current = current === undefined ? undefined : unwrap(current);
  }
  return current;
}

export function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  if (schema === undefined) return undefined;
  const def = unwrap(schema).def as { type: string; shape?: Record<string, z.ZodType> };
  return def.type === 'object' ? def.shape : undefined;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current.def as { type: string; innerType?: z.ZodType };
    if (!['default', 'prefault', 'optional', 'nullable'].includes(def.type) || def.innerType === undefined) return current;
    current = def.innerType;
  }
}
