// Detects the code style: from .editorconfig, prettier and eslint configuration, else sampled from the code.

export type CodeStyle = {
  indent: { kind: 'space' | 'tab'; size: number };
  quotes: 'single' | 'double';
  semicolons: boolean;
  /** How file names are written (components aside). */
  fileNaming: 'kebab-case' | 'camelCase' | 'PascalCase' | 'snake_case' | 'mixed';
  /** How functions and variables are named. */
  identifierNaming: 'camelCase' | 'snake_case' | 'mixed';
  importStyle: 'esm' | 'commonjs' | 'mixed';
  /** Where each setting came from. */
  sources: Partial<Record<'indent' | 'quotes' | 'semicolons', 'editorconfig' | 'prettier' | 'eslint' | 'sampled' | 'default'>>;
};

export type StyleInput = {
  editorconfig: string | null;
  prettier: Record<string, unknown> | null;
  eslintConfigText: string | null;
  /** A sample of source texts. */
  samples: readonly string[];
  sourcePaths: readonly string[];
  identifiers: readonly string[];
  importKinds: { esm: number; commonjs: number };
};

export function detectStyle(input: StyleInput): CodeStyle {
  const sampled = sampleStyle(input.samples);
  const style: CodeStyle = {
    indent: sampled.indent ?? { kind: 'space', size: 2 },
    quotes: sampled.quotes ?? 'single',
    semicolons: sampled.semicolons ?? true,
    fileNaming: fileNaming(input.sourcePaths),
    identifierNaming: identifierNaming(input.identifiers),
    importStyle: input.importKinds.esm && input.importKinds.commonjs ? (input.importKinds.esm >= 4 * input.importKinds.commonjs ? 'esm' : input.importKinds.commonjs >= 4 * input.importKinds.esm ? 'commonjs' : 'mixed') : input.importKinds.commonjs ? 'commonjs' : 'esm',
    sources: { indent: sampled.indent ? 'sampled' : 'default', quotes: sampled.quotes ? 'sampled' : 'default', semicolons: sampled.semicolons === null ? 'default' : 'sampled' },
  };
  applyEslint(style, input.eslintConfigText);
  applyEditorconfig(style, input.editorconfig);
  applyPrettier(style, input.prettier);
  return style;
}

function applyEditorconfig(style: CodeStyle, text: string | null): void {
  if (!text) return;
  // Only the sections that cover JS/TS (or everything) apply.
  let applies = true;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    const section = /^\[(.*)\]$/.exec(line);
    if (section) {
      applies = /^\*$|js|ts|\{/.test(section[1] ?? '');
      continue;
    }
    if (!applies) continue;
    const [key, value] = line.split('=').map((part) => part.trim().toLowerCase());
    if (key === 'indent_style' && (value === 'tab' || value === 'space')) {
      style.indent = { ...style.indent, kind: value };
      style.sources.indent = 'editorconfig';
    } else if (key === 'indent_size' && value && /^\d+$/.test(value)) {
      style.indent = { ...style.indent, size: Number(value) };
      style.sources.indent = 'editorconfig';
    } else if (key === 'quote_type' && (value === 'single' || value === 'double')) {
      style.quotes = value;
      style.sources.quotes = 'editorconfig';
    }
  }
}

function applyPrettier(style: CodeStyle, config: Record<string, unknown> | null): void {
  if (!config) return;
  // Prettier's own defaults apply when a project uses prettier without setting an option.
  style.quotes = config.singleQuote === true ? 'single' : 'double';
  style.semicolons = config.semi !== false;
  style.indent = { kind: config.useTabs === true ? 'tab' : 'space', size: typeof config.tabWidth === 'number' ? config.tabWidth : 2 };
  style.sources = { ...style.sources, quotes: 'prettier', semicolons: 'prettier', indent: 'prettier' };
}

function applyEslint(style: CodeStyle, text: string | null): void {
  if (!text) return;
  const quotes = /['"]?quotes['"]?\s*:\s*\[\s*['"]?(?:error|warn|1|2)['"]?\s*,\s*['"](single|double)['"]/.exec(text);
  if (quotes?.[1] === 'single' || quotes?.[1] === 'double') {
    style.quotes = quotes[1];
    style.sources.quotes = 'eslint';
  }
  const semi = /['"]?semi['"]?\s*:\s*\[\s*['"]?(?:error|warn|1|2)['"]?\s*,\s*['"](always|never)['"]/.exec(text);
  if (semi) {
    style.semicolons = semi[1] === 'always';
    style.sources.semicolons = 'eslint';
  }
  const indent = /['"]?indent['"]?\s*:\s*\[\s*['"]?(?:error|warn|1|2)['"]?\s*,\s*(?:(\d+)|['"]tab['"])/.exec(text);
  if (indent) {
    style.indent = indent[1] ? { kind: 'space', size: Number(indent[1]) } : { kind: 'tab', size: 1 };
    style.sources.indent = 'eslint';
  }
}

function sampleStyle(samples: readonly string[]): { indent: CodeStyle['indent'] | null; quotes: CodeStyle['quotes'] | null; semicolons: boolean | null } {
  let tabs = 0;
  const spaceWidths = new Map<number, number>();
  let single = 0;
  let double = 0;
  let withSemicolon = 0;
  let withoutSemicolon = 0;
  for (const text of samples) {
    for (const line of text.split('\n')) {
      const indent = /^(\t+| +)\S/.exec(line)?.[1];
      if (indent?.startsWith('\t')) tabs += 1;
      else if (indent) spaceWidths.set(indent.length, (spaceWidths.get(indent.length) ?? 0) + 1);
      const trimmed = line.trim();
      if (/^(?:import|export)\b.*\bfrom\s+'/.test(trimmed) || /require\('/.test(trimmed)) single += 1;
      if (/^(?:import|export)\b.*\bfrom\s+"/.test(trimmed) || /require\("/.test(trimmed)) double += 1;
      if (/^(?:import|export|const|let|var|return)\b/.test(trimmed) && !/[{(,[]$/.test(trimmed) && !/=>\s*$/.test(trimmed)) {
        if (trimmed.endsWith(';')) withSemicolon += 1;
        else withoutSemicolon += 1;
      }
    }
  }
  const spaced = [...spaceWidths.values()].reduce((sum, count) => sum + count, 0);
  let indent: CodeStyle['indent'] | null = null;
  if (tabs + spaced > 0) {
    if (tabs > spaced) indent = { kind: 'tab', size: 1 };
    else {
      // The smallest width used by at least a tenth of the indented lines is the unit.
      const unit = [...spaceWidths.entries()].filter(([, count]) => count * 10 >= spaced).map(([width]) => width).sort((a, b) => a - b)[0] ?? 2;
      indent = { kind: 'space', size: unit === 4 || unit === 2 || unit === 3 ? unit : 2 };
    }
  }
  return {
    indent,
    quotes: single + double === 0 ? null : single >= double ? 'single' : 'double',
    semicolons: withSemicolon + withoutSemicolon === 0 ? null : withSemicolon >= withoutSemicolon,
  };
}

function fileNaming(paths: readonly string[]): CodeStyle['fileNaming'] {
  const counts = { 'kebab-case': 0, camelCase: 0, PascalCase: 0, snake_case: 0 };
  for (const path of paths) {
    const base = (path.slice(path.lastIndexOf('/') + 1).split('.')[0] ?? '');
    if (base === 'index' || !/[-_A-Z]/.test(base.slice(1))) continue;
    if (/^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(base)) counts['kebab-case'] += 1;
    else if (/^[a-z0-9]+(?:_[a-z0-9]+)+$/.test(base)) counts.snake_case += 1;
    else if (/^[A-Z][A-Za-z0-9]*$/.test(base)) counts.PascalCase += 1;
    else if (/^[a-z][A-Za-z0-9]*$/.test(base)) counts.camelCase += 1;
  }
  return dominant(counts, 'kebab-case');
}

function identifierNaming(names: readonly string[]): CodeStyle['identifierNaming'] {
  const counts = { camelCase: 0, snake_case: 0 };
  for (const name of names) {
    if (/^[a-z]+(?:_[a-z0-9]+)+$/.test(name)) counts.snake_case += 1;
    else if (/^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/.test(name)) counts.camelCase += 1;
  }
  return dominant(counts, 'camelCase');
}

function dominant<Name extends string>(counts: Record<Name, number>, fallback: Name): Name | 'mixed' {
  const entries = (Object.entries(counts) as [Name, number][]).sort((left, right) => right[1] - left[1]);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  const first = entries[0];
  if (!first || total === 0) return fallback;
  return first[1] >= total * 0.7 ? first[0] : 'mixed';
}
