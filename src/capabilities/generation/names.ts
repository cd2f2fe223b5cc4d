// Names for generated code: words of a name in PascalCase, camelCase, kebab-case, snake_case; plurals; file names in the project's convention.
import type { CodeStyle } from '../../project/style.js';

/** "product review", "ProductReview", "product-review" → ["product", "review"]. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

export const pascalCase = (name: string): string => wordsOf(name).map(capitalize).join('');
export const camelCase = (name: string): string => {
  const pascal = pascalCase(name);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
};
export const kebabCase = (name: string): string => wordsOf(name).join('-');
export const snakeCase = (name: string): string => wordsOf(name).join('_');

/** English plural of the last word: category → categories, box → boxes, review → reviews. */
export function plural(name: string): string {
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/i.test(name)) return `${name}es`;
  return `${name}s`;
}

/** English singular of the last word: categories → category, boxes → box, reviews → review. */
export function singular(name: string): string {
  if (/ies$/i.test(name)) return `${name.slice(0, -3)}y`;
  if (/(?:ss|x|z|ch|sh)es$/i.test(name)) return name.slice(0, -2);
  if (/[^s]s$/i.test(name)) return name.slice(0, -1);
  return name;
}

/** A module file's base name in the project's file naming (kebab-case when mixed or unknown). */
export function fileBaseName(name: string, naming: CodeStyle['fileNaming']): string {
  switch (naming) {
    case 'camelCase': return camelCase(name);
    case 'PascalCase': return pascalCase(name);
    case 'snake_case': return snakeCase(name);
    default: return kebabCase(name);
  }
}
