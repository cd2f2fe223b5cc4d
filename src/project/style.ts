// Detects the code style: from .editorconfig, prettier and eslint configuration, else sampled from the code.
import type { PrettierConfig } from './prettier-config.js';

export type CodeStyle = {
  indent: { kind: 'space' | 'tab'; size: number };
  quotes: 'single' | 'double';
  semicolons: boolean;
  /** How file names are written (components aside). */
  fileNaming: 'kebab-case' | 'camelCase' | 'PascalCase' | 'snake_case' | 'mixed';
  /** How functions and variables are named. */
  identifierNaming: 'camelCase' | 'snake_case' | 'mixed';
  importStyle: 'esm' | 'commonjs' | 'mixed';
  /** The line length the formatter wraps at. */
  printWidth: number;
  trailingComma: 'all' | 'es5' | 'none';
  bracketSpacing: boolean;
  arrowParens: 'always' | 'avoid';
  jsxQuotes: 'single' | 'double';
  /** `function name (a)` as standard/neostandard want, rather than `function name(a)`. */
  spaceBeforeFunctionParen: boolean;
  /** What enforces the style: Prettier (its output is the style), ESLint's stylistic rules, or nothing. */
  formatter: 'prettier' | 'eslint' | null;
  /** The import order a Prettier import-sorting plugin enforces (its `importOrder` patterns, '' for a blank line between groups), or null. */
  importOrder: string[] | null;
  /** Whether that plugin sorts the names inside an import's braces. */
  sortImportSpecifiers: boolean;
  /** Whether a Tailwind plugin sorts class names (prettier-plugin-tailwindcss, eslint-plugin-tailwindcss). */
  sortsTailwindClasses: boolean;
  /** Whether that plugin is pointed at the project's theme (tailwindStylesheet/tailwindConfig): without it, the theme's own classes count as unknown and go first. */
  tailwindThemeConfigured: boolean;
  /** Where each setting came from. */
  sources: Partial<Record<'indent' | 'quotes' | 'semicolons' | 'printWidth' | 'trailingComma', 'editorconfig' | 'prettier' | 'eslint' | 'sampled' | 'default'>>;
};

export type StyleInput = {
  editorconfig: string | null;
  prettier: PrettierConfig | null;
  /** The major version of Prettier the project depends on (its defaults changed in 3), or null when it has none. */
  prettierMajor?: number | null;
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
    printWidth: 80,
    trailingComma: sampled.trailingComma ?? 'all',
    bracketSpacing: true,
    arrowParens: 'always',
    jsxQuotes: 'double',
    spaceBeforeFunctionParen: sampled.spaceBeforeFunctionParen,
    formatter: null,
    importOrder: null,
    sortImportSpecifiers: false,
    sortsTailwindClasses: false,
    tailwindThemeConfigured: false,
    sources: { indent: sampled.indent ? 'sampled' : 'default', quotes: sampled.quotes ? 'sampled' : 'default', semicolons: sampled.semicolons === null ? 'default' : 'sampled', printWidth: 'default', trailingComma: sampled.trailingComma ? 'sampled' : 'default' },
  };
  applyEslint(style, input.eslintConfigText);
  followTheCode(style, sampled);
  applyEditorconfig(style, input.editorconfig);
  if (input.prettier || input.prettierMajor) applyPrettier(style, input.prettier, input.prettierMajor ?? null);
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
    } else if (key === 'max_line_length' && value && /^\d+$/.test(value)) {
      style.printWidth = Number(value);
      style.sources.printWidth = 'editorconfig';
    }
  }
}

function applyPrettier(style: CodeStyle, config: PrettierConfig | null, major: number | null): void {
  // Prettier's own defaults apply when a project uses prettier without setting an option (trailing commas became "all" in 3).
  const options = config?.options ?? {};
  style.formatter = 'prettier';
  style.quotes = options.singleQuote === true ? 'single' : 'double';
  style.jsxQuotes = options.jsxSingleQuote === true ? 'single' : 'double';
  style.semicolons = options.semi !== false;
  style.indent = { kind: options.useTabs === true ? 'tab' : 'space', size: typeof options.tabWidth === 'number' ? options.tabWidth : 2 };
  style.printWidth = typeof options.printWidth === 'number' ? options.printWidth : 80;
  const trailing = options.trailingComma;
  style.trailingComma = trailing === 'all' || trailing === 'es5' || trailing === 'none' ? trailing : major !== null && major < 3 ? 'es5' : 'all';
  style.bracketSpacing = options.bracketSpacing !== false;
  style.arrowParens = options.arrowParens === 'avoid' ? 'avoid' : 'always';
  style.spaceBeforeFunctionParen = false;
  const plugins = config?.plugins ?? [];
  const sorter = plugins.find((plugin) => /sort-imports/.test(plugin));
  if (sorter && Array.isArray(options.importOrder)) {
    const patterns = options.importOrder.filter((pattern): pattern is string => typeof pattern === 'string');
    // @ianvs marks blank lines with '' entries; @trivago puts one between every group when importOrderSeparation is on.
    style.importOrder = sorter.includes('@ianvs') ? patterns : patterns.filter(Boolean).flatMap((pattern, index) => (index > 0 && options.importOrderSeparation === true ? ['', pattern] : [pattern]));
    style.sortImportSpecifiers = sorter.includes('@ianvs') || options.importOrderSortSpecifiers === true;
  }
  if (plugins.some((plugin) => /prettier-plugin-tailwindcss/.test(plugin))) {
    style.sortsTailwindClasses = true;
    style.tailwindThemeConfigured = typeof options.tailwindStylesheet === 'string' || typeof options.tailwindConfig === 'string';
  }
  style.sources = { ...style.sources, quotes: 'prettier', semicolons: 'prettier', indent: 'prettier', printWidth: 'prettier', trailingComma: 'prettier' };
}

/** A rule's options as written in an ESLint config (flat or legacy, JSON or JS): `'name': ['error', …]`. */
function ruleOption(text: string, names: string, option: string): RegExpExecArray | null {
  return new RegExp(`['"]?(?:@stylistic/(?:js/|ts/)?|style/)?(?:${names})['"]?\\s*:\\s*\\[\\s*['"]?(?:error|warn|1|2)['"]?\\s*,\\s*${option}`).exec(text);
}

function applyEslint(style: CodeStyle, text: string | null): void {
  if (!text) return;
  // Shared configs that set the style: standard and neostandard (no semicolons, a space before function parentheses, no
  // trailing commas), antfu's (no semicolons, trailing commas on multi-line literals).
  if (/\bneostandard\b|['"](?:eslint-config-)?standard(?:-with-typescript)?['"]|\bts-standard\b/.test(text)) {
    Object.assign(style, { semicolons: false, quotes: 'single', spaceBeforeFunctionParen: true, trailingComma: 'none', formatter: 'eslint' });
    Object.assign(style.sources, { semicolons: 'eslint', quotes: 'eslint', trailingComma: 'eslint' });
  } else if (/@antfu\/eslint-config/.test(text)) {
    Object.assign(style, { semicolons: false, quotes: 'single', spaceBeforeFunctionParen: false, trailingComma: 'all', formatter: 'eslint', arrowParens: 'avoid' });
    Object.assign(style.sources, { semicolons: 'eslint', quotes: 'eslint', trailingComma: 'eslint' });
    applyAntfuStylistic(style, text);
  }
  const quotes = ruleOption(text, 'quotes', `['"](single|double)['"]`);
  if (quotes?.[1] === 'single' || quotes?.[1] === 'double') {
    style.quotes = quotes[1];
    style.sources.quotes = 'eslint';
  }
  const semi = ruleOption(text, 'semi', `['"](always|never)['"]`);
  if (semi) {
    style.semicolons = semi[1] === 'always';
    style.sources.semicolons = 'eslint';
  }
  const indent = ruleOption(text, 'indent', `(?:(\\d+)|['"]tab['"])`);
  if (indent) {
    style.indent = indent[1] ? { kind: 'space', size: Number(indent[1]) } : { kind: 'tab', size: 1 };
    style.sources.indent = 'eslint';
  }
  const dangle = ruleOption(text, 'comma-dangle', `(?:['"](never|always-multiline|always|only-multiline)['"]|\\{[^}]*?\\bobjects['"]?\\s*:\\s*['"](never|always-multiline|always|only-multiline)['"])`);
  if (dangle) {
    style.trailingComma = (dangle[1] ?? dangle[2]) === 'never' ? 'none' : 'all';
    style.sources.trailingComma = 'eslint';
  }
  const spaceBefore = ruleOption(text, 'space-before-function-paren', `(?:['"](always|never)['"]|\\{[^}]*?\\bnamed['"]?\\s*:\\s*['"](always|never)['"])`);
  if (spaceBefore) style.spaceBeforeFunctionParen = (spaceBefore[1] ?? spaceBefore[2]) === 'always';
  const maxLength = ruleOption(text, 'max-len', `(?:(\\d+)|\\{[^}]*?\\bcode['"]?\\s*:\\s*(\\d+))`);
  if (maxLength) {
    style.printWidth = Number(maxLength[1] ?? maxLength[2]);
    style.sources.printWidth = 'eslint';
  }
  if (/eslint-plugin-tailwindcss|['"]tailwindcss['"]\s*[\],]|plugin:tailwindcss\//.test(text)) style.sortsTailwindClasses = true;
  applyImportSorting(style, text);
}

/** simple-import-sort's first group: imports for their side effects only, which it marks with a leading \u0000 (so do cadre's edits). */
export const sideEffectImports = '^\\u0000';

/** A rule enabled in the config (`'name': 'error'`, `'name': ['warn', …]`, `"name": 2`), and its options text when it has some. */
function enabledRule(text: string, name: string): { options: string } | null {
  const match = new RegExp(`['"]?${name.replace(/[/]/g, '\\/')}['"]?\\s*:\\s*(\\[\\s*)?['"]?(error|warn|1|2|off|0)['"]?`).exec(text);
  if (!match || match[2] === 'off' || match[2] === '0') return null;
  return { options: match[1] ? text.slice(match.index + match[0].length, match.index + match[0].length + 2000) : '' };
}

/**
 * ESLint's import-sorting rules, as the patterns `importOrder` holds: simple-import-sort's default groups (side effects, `node:`
 * built-ins, packages, absolute and aliased paths, relative paths, a blank line between groups, names sorted in the braces),
 * and eslint-plugin-import's `import/order` groups (built-ins, packages, parents, siblings; blank lines with
 * `newlines-between: 'always'`). A Prettier sorting plugin, read after this, takes precedence.
 */
function applyImportSorting(style: CodeStyle, text: string): void {
  const simple = enabledRule(text, 'simple-import-sort/imports');
  // Custom `groups` are the project's own regular expressions: without them the default groups apply.
  if (simple && !/^\s*,\s*\{\s*['"]?groups\b/.test(simple.options)) {
    style.importOrder = [sideEffectImports, '', '^node:', '', '^@?\\w', '', '<THIRD_PARTY_MODULES>', '', '^\\.'];
    style.sortImportSpecifiers = true;
    return;
  }
  const order = enabledRule(text, 'import/order');
  if (order) {
    const blank = /['"]?newlines-between['"]?\s*:\s*['"]always['"]/.test(order.options);
    // Types the default groups leave out (internal, i.e. aliased paths, and unknown) come last together.
    const groups = ['<BUILTIN_MODULES>', '<THIRD_PARTY_MODULES>', '^\\.\\./', '^\\./', '^(?:[@~#]/|src/)'];
    style.importOrder = blank ? groups.flatMap((group, index) => (index > 0 ? ['', group] : [group])) : groups;
  }
}

/** antfu's preset takes its style as options, `antfu({ stylistic: { quotes: 'double', semi: true, indent: 4 } })`, over its defaults (single quotes, no semicolons, 2 spaces). */
function applyAntfuStylistic(style: CodeStyle, text: string): void {
  const options = /\bstylistic\s*:\s*\{([^{}]*)\}/.exec(text)?.[1];
  if (!options) return;
  const quotes = /\bquotes['"]?\s*:\s*['"](single|double)['"]/.exec(options)?.[1];
  if (quotes === 'single' || quotes === 'double') style.quotes = quotes;
  const semi = /\bsemi['"]?\s*:\s*(true|false)\b/.exec(options)?.[1];
  if (semi) style.semicolons = semi === 'true';
  const indent = /\bindent['"]?\s*:\s*(?:(\d+)|['"]tab['"])/.exec(options);
  if (indent) {
    style.indent = indent[1] ? { kind: 'space', size: Number(indent[1]) } : { kind: 'tab', size: 1 };
    style.sources.indent = 'eslint';
  }
}

/** Where the ESLint config read (or a preset's default) and the project's code disagree on quotes or semicolons, the code wins: its lint passes as it is, so the reading was wrong. */
function followTheCode(style: CodeStyle, sampled: Sampled): void {
  const agree = (counts: [number, number]): boolean => counts[0] + counts[1] >= 20 && Math.max(...counts) >= 0.9 * (counts[0] + counts[1]);
  if (style.sources.quotes === 'eslint' && sampled.quotes && sampled.quotes !== style.quotes && agree(sampled.counts.quotes)) {
    style.quotes = sampled.quotes;
    style.sources.quotes = 'sampled';
  }
  if (style.sources.semicolons === 'eslint' && sampled.semicolons !== null && sampled.semicolons !== style.semicolons && agree(sampled.counts.semicolons)) {
    style.semicolons = sampled.semicolons;
    style.sources.semicolons = 'sampled';
  }
}

type Sampled = { indent: CodeStyle['indent'] | null; quotes: CodeStyle['quotes'] | null; semicolons: boolean | null; trailingComma: CodeStyle['trailingComma'] | null; spaceBeforeFunctionParen: boolean; counts: { quotes: [number, number]; semicolons: [number, number] } };

function sampleStyle(samples: readonly string[]): Sampled {
  let tabs = 0;
  let trailing = 0;
  let bare = 0;
  let spaced = 0;
  let tight = 0;
  const spaceWidths = new Map<number, number>();
  let single = 0;
  let double = 0;
  let withSemicolon = 0;
  let withoutSemicolon = 0;
  for (const text of samples) {
    let previous: string | null = null;
    for (const line of text.split('\n')) {
      const indent = /^(\t+| +)\S/.exec(line)?.[1];
      if (indent?.startsWith('\t')) tabs += 1;
      else if (indent) spaceWidths.set(indent.length, (spaceWidths.get(indent.length) ?? 0) + 1);
      const trimmed = line.trim();
      if (/^[\]}]\)?[,;]?$/.test(trimmed) && previous !== null) {
        if (previous.endsWith(',')) trailing += 1;
        else if (/[\w'"`\])}]$/.test(previous)) bare += 1;
      }
      if (/\bfunction\s*[\w$]*\s+\(/.test(trimmed)) spaced += 1;
      else if (/\bfunction\s*[\w$]*\(/.test(trimmed)) tight += 1;
      previous = trimmed;
      if (/^(?:import|export)\b.*\bfrom\s+'/.test(trimmed) || /require\('/.test(trimmed)) single += 1;
      if (/^(?:import|export)\b.*\bfrom\s+"/.test(trimmed) || /require\("/.test(trimmed)) double += 1;
      if (/^(?:import|export|const|let|var|return)\b/.test(trimmed) && !/[{(,[]$/.test(trimmed) && !/=>\s*$/.test(trimmed)) {
        if (trimmed.endsWith(';')) withSemicolon += 1;
        else withoutSemicolon += 1;
      }
    }
  }
  const indented = [...spaceWidths.values()].reduce((sum, count) => sum + count, 0);
  let indent: CodeStyle['indent'] | null = null;
  if (tabs + indented > 0) {
    if (tabs > indented) indent = { kind: 'tab', size: 1 };
    else {
      // The smallest width used by at least a tenth of the indented lines is the unit.
      const unit = [...spaceWidths.entries()].filter(([, count]) => count * 10 >= indented).map(([width]) => width).sort((a, b) => a - b)[0] ?? 2;
      indent = { kind: 'space', size: unit === 4 || unit === 2 || unit === 3 ? unit : 2 };
    }
  }
  return {
    indent,
    quotes: single + double === 0 ? null : single >= double ? 'single' : 'double',
    semicolons: withSemicolon + withoutSemicolon === 0 ? null : withSemicolon >= withoutSemicolon,
    trailingComma: trailing + bare < 3 ? null : trailing >= bare ? 'all' : 'none',
    spaceBeforeFunctionParen: spaced > tight,
    counts: { quotes: [single, double], semicolons: [withSemicolon, withoutSemicolon] },
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
