// The project's Prettier configuration, read without running it: package.json "prettier", .prettierrc (JSON or YAML), or a JS config file evaluated statically.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackageJson } from './detect.js';
import { type StaticValue, defaultExportValue, parseJsonc } from './static-value.js';

export type PrettierConfig = {
  /** Options with literal values (printWidth, semi, singleQuote, trailingComma, importOrder…). */
  options: Record<string, StaticValue>;
  /** Plugin package names the config loads (never loaded by cadre: their effect is reproduced where it matters). */
  plugins: string[];
  /** Where the configuration came from, relative to the project. */
  source: string;
};

const jsConfigs = ['prettier.config.js', 'prettier.config.mjs', 'prettier.config.cjs', 'prettier.config.ts', '.prettierrc.js', '.prettierrc.mjs', '.prettierrc.cjs', '.prettierrc.ts'];

/** The configuration Prettier would use for files at the project root, or null when the project has none. */
export async function readPrettierConfig(cwd: string, packageJson: PackageJson | null, workspacePackages: ReadonlyMap<string, string> = new Map()): Promise<PrettierConfig | null> {
  const fromPackage = (packageJson as { prettier?: unknown } | null)?.prettier;
  if (typeof fromPackage === 'object' && fromPackage !== null && !Array.isArray(fromPackage)) return shaped(fromPackage as Record<string, StaticValue>, 'package.json');
  if (typeof fromPackage === 'string') return sharedConfig(cwd, fromPackage, workspacePackages);
  for (const name of ['.prettierrc', '.prettierrc.json', '.prettierrc.json5', '.prettierrc.yaml', '.prettierrc.yml']) {
    const text = await readText(join(cwd, name));
    if (text === null) continue;
    const json = parseJsonc(text);
    const options = json && typeof json === 'object' && !Array.isArray(json) ? json as Record<string, StaticValue> : parseFlatYaml(text);
    return shaped(options, name);
  }
  for (const name of jsConfigs) {
    const text = await readText(join(cwd, name));
    if (text === null) continue;
    const value = defaultExportValue(name, text);
    return shaped(value && typeof value === 'object' && !Array.isArray(value) ? value : {}, name);
  }
  return null;
}

/** A shareable config named in package.json: a workspace package of the same repository, or one installed in node_modules. */
async function sharedConfig(cwd: string, name: string, workspacePackages: ReadonlyMap<string, string>): Promise<PrettierConfig | null> {
  const folders = [workspacePackages.get(name), join('node_modules', name)].filter((folder): folder is string => Boolean(folder));
  for (const folder of folders) {
    const manifest = parseJsonc((await readText(join(cwd, folder, 'package.json'))) ?? '') as { main?: string; exports?: unknown } | null;
    const exported = typeof manifest?.exports === 'string' ? manifest.exports : (manifest?.exports as { '.'?: unknown } | undefined)?.['.'];
    const entry = typeof exported === 'string' ? exported : (exported as { default?: string; import?: string } | undefined)?.default ?? (exported as { import?: string } | undefined)?.import ?? manifest?.main ?? 'index.js';
    const text = await readText(join(cwd, folder, entry));
    if (text === null) continue;
    const value = defaultExportValue(entry, text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return shaped(value, `${folder}/${entry}`.replace(/\/\.\//g, '/'));
  }
  return null;
}

function shaped(options: Record<string, StaticValue>, source: string): PrettierConfig {
  const plugins = Array.isArray(options.plugins) ? options.plugins.filter((plugin): plugin is string => typeof plugin === 'string') : [];
  return { options, plugins, source };
}

/** `key: value` lines of a flat YAML .prettierrc (the form it usually takes). */
function parseFlatYaml(text: string): Record<string, StaticValue> {
  const options: Record<string, StaticValue> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Za-z]+)\s*:\s*(.+?)\s*$/.exec(line);
    if (!match) continue;
    const raw = (match[2] as string).replace(/^["']|["']$/g, '');
    options[match[1] as string] = raw === 'true' ? true : raw === 'false' ? false : /^\d+$/.test(raw) ? Number(raw) : raw;
  }
  return options;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}
