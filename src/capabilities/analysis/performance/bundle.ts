// Bundle size: whole-library imports in client code, and large dependencies measured from the installed packages.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type AstNode, child, children, staticString } from '../../../project/ast.js';
import { packageNameOf } from '../../../project/detect.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';
import type { ProjectView } from '../view.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'performance', category: 'bundle', title, help });

export const bundleRules = {
  wholeLibrary: rule('performance/whole-library-import', 'Whole-library import of a large package', 'Import only what you use (per-method paths or the ES module build), so the bundler can drop the rest.'),
  largeDependency: rule('performance/large-dependency', 'Large dependency in client code', 'Lazy-load it (dynamic import()), or use a lighter alternative.'),
};

/** Packages whose default or namespace import pulls in the whole library, and what to use instead. */
const heavyDefaults: Record<string, string> = {
  lodash: "import get from 'lodash/get' (or lodash-es with named imports)",
  moment: 'date-fns or dayjs (moment cannot be tree-shaken and ships every locale)',
  'date-fns': "named imports: import { format } from 'date-fns'",
  rxjs: "named imports from 'rxjs' and 'rxjs/operators'",
  '@mui/icons-material': "import SaveIcon from '@mui/icons-material/Save'",
  '@mui/material': "named imports: import { Button } from '@mui/material'",
  'aws-sdk': 'the modular v3 clients (@aws-sdk/client-s3, …)',
  antd: "named imports: import { Button } from 'antd'",
  'react-icons': "a subpath: import { FaBeer } from 'react-icons/fa'",
  ramda: "named imports: import { map } from 'ramda'",
  jquery: 'the DOM APIs (querySelector, fetch, classList)',
  'core-js': 'targeted polyfills for the browsers you support',
};

export const largeDependencyBytes = 500_000;

function isClientFile(path: string): boolean {
  return /\.(?:[jt]sx|vue|svelte)$/.test(path) || /(?:^|\/)(?:components|pages|app|client|frontend|ui|views|hooks)\//.test(path);
}

export function checkWholeLibraryImports(file: SourceFile): Finding[] {
  if (!file.parsed || !isClientFile(file.path)) return [];
  const findings: Finding[] = [];
  for (const statement of children(file.parsed.program, 'body')) {
    if (statement.type !== 'ImportDeclaration' || statement.importKind === 'type') continue;
    const source = staticString(child(statement, 'source')) ?? '';
    const advice = heavyDefaults[source];
    if (!advice) continue;
    const specifiers = children(statement, 'specifiers');
    const whole = specifiers.some((specifier: AstNode) => specifier.type === 'ImportDefaultSpecifier' || specifier.type === 'ImportNamespaceSpecifier');
    if (whole || (source === 'lodash' && specifiers.length > 0)) {
      findings.push(findingAt(file, statement, bundleRules.wholeLibrary, { severity: 'Medium', message: `This imports all of ${source} into the client bundle.`, fix: `Use ${advice}.` }));
    }
  }
  return findings;
}

/** Installed size of each package imported by client files, from node_modules. */
export async function checkLargeDependencies(view: ProjectView): Promise<Finding[]> {
  const firstUse = new Map<string, { file: string; line: number }>();
  for (const [path, file] of view.files) {
    if (!isClientFile(path)) continue;
    for (const fact of file.facts?.imports ?? []) {
      const name = packageNameOf(fact.source);
      if (name && !name.startsWith('node:') && fact.kind !== 'dynamic' && !fact.typeOnly && !firstUse.has(name)) firstUse.set(name, { file: path, line: fact.line });
    }
  }
  const findings: Finding[] = [];
  for (const [name, where] of firstUse) {
    const bytes = await folderSize(join(view.root, 'node_modules', name), 4000);
    if (bytes === null || bytes < largeDependencyBytes) continue;
    findings.push({
      file: where.file, line: where.line, column: 1, ruleId: bundleRules.largeDependency.id, category: 'bundle', severity: bytes > 4 * largeDependencyBytes ? 'Medium' : 'Low',
      message: `${name} ships ${(bytes / 1_000_000).toFixed(1)} MB of JavaScript as installed; it is imported statically by client code.`,
      fix: bundleRules.largeDependency.help,
    });
  }
  return findings;
}

/** Bytes of .js/.mjs/.cjs files under a folder (skipping nested node_modules), or null when it is not installed. */
async function folderSize(folder: string, maxFiles: number): Promise<number | null> {
  let total = 0;
  let files = 0;
  const visit = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries) {
      if (files >= maxFiles) return;
      if (entry.isDirectory() && entry.name !== 'node_modules') await visit(join(current, entry.name));
      else if (entry.isFile() && /\.[cm]?js$/.test(entry.name)) {
        files += 1;
        total += (await stat(join(current, entry.name))).size;
      }
    }
  };
  try {
    await visit(folder);
  } catch {
    return files === 0 ? null : total;
  }
  return total;
}
