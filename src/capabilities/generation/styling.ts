// Styling for a generated component in the project's theming approach: Tailwind, MUI/Chakra theme, styled-components, Emotion, CSS modules, Sass, CSS variables.
import type { ProjectContext } from '../../project/context.js';
import type { Conventions } from './conventions.js';
import { kebabCase } from './names.js';

export type ThemeTokens = { surface: string; text: string; accent: string; radius: string; space: string };

/** How a component is styled: imports, declarations before it, and the attributes/tag of its root, title and button. */
export type ComponentStyling = {
  approach: string;
  imports: string[];
  declarations: string;
  root: { tag: string; attributes: string };
  title: { tag: string; attributes: string };
  button: { tag: string; attributes: string };
  /** A stylesheet next to the component (path relative to the component folder, content), or null. */
  stylesheet: { fileName: string; content: string } | null;
};

const plain = (tag: string): { tag: string; attributes: string } => ({ tag, attributes: '' });

export function chooseStyling(input: { name: string; context: ProjectContext; conventions: Conventions; tokens: ThemeTokens }): ComponentStyling {
  const { name, context, conventions, tokens } = input;
  const theming = context.theming;
  const has = (dependency: string): boolean => conventions.dependencies.has(dependency);
  const rules = cssRules(tokens);
  const block = (selector: string, body: string): string => `${selector} {\n${body}\n}`;
  if (theming.includes('Tailwind CSS')) {
    return { approach: 'Tailwind CSS utility classes', imports: [], declarations: '', stylesheet: null,
      root: { tag: 'section', attributes: ' className="flex flex-col gap-2 rounded-lg bg-white p-4 shadow-sm"' },
      title: { tag: 'h2', attributes: ' className="text-lg font-semibold"' },
      button: { tag: 'button', attributes: ' className="rounded-md bg-blue-600 px-3 py-1 text-white hover:bg-blue-700"' } };
  }
  if (theming.includes('MUI theme')) {
    const material = has('@mui/material') ? '@mui/material' : '@material-ui/core';
    return { approach: 'the MUI theme (sx props on theme tokens)', imports: [`import { Box, Button, Typography } from '${material}';`], declarations: '', stylesheet: null,
      root: { tag: 'Box', attributes: ' component="section" sx={{ p: 2, borderRadius: 1, bgcolor: \'background.paper\', display: \'flex\', flexDirection: \'column\', gap: 1 }}' },
      title: { tag: 'Typography', attributes: ' variant="h6" component="h2"' },
      button: { tag: 'Button', attributes: ' variant="contained"' } };
  }
  if (theming.includes('Chakra UI theme')) {
    return { approach: 'the Chakra UI theme (style props on theme tokens)', imports: ['import { Box, Button, Heading } from \'@chakra-ui/react\';'], declarations: '', stylesheet: null,
      root: { tag: 'Box', attributes: ' as="section" p={4} borderRadius="md" bg="white" display="flex" flexDirection="column" gap={2}' },
      title: { tag: 'Heading', attributes: ' as="h2" size="md"' },
      button: { tag: 'Button', attributes: ' colorScheme="blue"' } };
  }
  const styledFrom = theming.includes('styled-components') ? 'styled-components' : theming.includes('Emotion') && has('@emotion/styled') ? '@emotion/styled' : null;
  if (styledFrom) {
    const declarations = [
      `const Root = styled.section\`\n${rules.root}\n\`;`,
      `const Title = styled.h2\`\n${rules.title}\n\`;`,
      `const ActionButton = styled.button\`\n${rules.button}\n\`;`,
    ].join('\n\n');
    return { approach: styledFrom, imports: [`import styled from '${styledFrom}';`], declarations, stylesheet: null,
      root: plain('Root'), title: plain('Title'), button: { tag: 'ActionButton', attributes: ' type="button"' } };
  }
  const moduleExtension = existingModuleExtension(context) ?? (theming.includes('CSS modules') ? (theming.includes('Sass') ? 'scss' : 'css') : null);
  if (moduleExtension) {
    const content = [block('.root', rules.root), block('.title', rules.title), block('.button', rules.button)].join('\n\n');
    return { approach: `a CSS module${theming.includes('CSS variables') ? ' on the theme\'s CSS variables' : ''}`, imports: [`import styles from './${name}.module.${moduleExtension}';`], declarations: '',
      stylesheet: { fileName: `${name}.module.${moduleExtension}`, content: `${content}\n` },
      root: { tag: 'section', attributes: ' className={styles.root}' }, title: { tag: 'h2', attributes: ' className={styles.title}' },
      button: { tag: 'button', attributes: ' type="button" className={styles.button}' } };
  }
  const base = kebabCase(name);
  const extension = theming.includes('Sass') ? 'scss' : theming.includes('Less') ? 'less' : 'css';
  const content = [block(`.${base}`, rules.root), block(`.${base}__title`, rules.title), block(`.${base}__button`, rules.button)].join('\n\n');
  return { approach: extension === 'css' ? `a stylesheet${theming.includes('CSS variables') ? ' on the theme\'s CSS variables' : ''}` : `a ${extension === 'scss' ? 'Sass' : 'Less'} stylesheet`,
    imports: [`import './${name}.${extension}';`], declarations: '', stylesheet: { fileName: `${name}.${extension}`, content: `${content}\n` },
    root: { tag: 'section', attributes: ` className="${base}"` }, title: { tag: 'h2', attributes: ` className="${base}__title"` },
    button: { tag: 'button', attributes: ` type="button" className="${base}__button"` } };
}

function cssRules(tokens: ThemeTokens): { root: string; title: string; button: string } {
  return {
    root: `  display: flex;\n  flex-direction: column;\n  gap: ${tokens.space};\n  padding: ${tokens.space};\n  background: ${tokens.surface};\n  color: ${tokens.text};\n  border-radius: ${tokens.radius};`,
    title: '  margin: 0;\n  font-size: 1.125rem;',
    button: `  align-self: flex-start;\n  padding: 0.25rem 0.75rem;\n  border: none;\n  border-radius: ${tokens.radius};\n  background: ${tokens.accent};\n  color: ${tokens.surface};\n  cursor: pointer;`,
  };
}

function existingModuleExtension(context: ProjectContext): string | null {
  const counts = new Map<string, number>();
  for (const path of Object.keys(context.files)) {
    const extension = /\.module\.(css|s[ac]ss|less)$/.exec(path)?.[1];
    if (extension) counts.set(extension, (counts.get(extension) ?? 0) + 1);
  }
  return [...counts.entries()].sort((left, right) => right[1] - left[1])[0]?.[0] ?? null;
}

/** The theme's own CSS custom properties for surface, text, accent, radius and spacing; plain values where it has none. */
export async function themeTokens(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<ThemeTokens> {
  const tokens: ThemeTokens = { surface: '#ffffff', text: '#1f2937', accent: '#2563eb', radius: '6px', space: '0.75rem' };
  if (!context.theming.includes('CSS variables')) return tokens;
  const names: string[] = [];
  for (const [path, entry] of Object.entries(context.files)) {
    if (!entry.cssVariables) continue;
    const text = (await read(path)) ?? '';
    for (const match of text.matchAll(/(--[\w-]+)\s*:/g)) names.push(match[1] as string);
  }
  const pick = (pattern: RegExp): string | null => names.find((variable) => pattern.test(variable)) ?? null;
  const use = (pattern: RegExp, fallback: string): string => { const found = pick(pattern); return found ? `var(${found})` : fallback; };
  const space = pick(/space|spacing|gap|gutter/);
  return {
    surface: use(/surface|background|bg\b|paper/, tokens.surface),
    text: use(/-text|foreground|fg\b|-ink/, tokens.text),
    accent: use(/primary|accent|brand/, tokens.accent),
    radius: use(/radius|rounded/, tokens.radius),
    space: space ? `calc(var(${space}) * 2)` : tokens.space,
  };
}
