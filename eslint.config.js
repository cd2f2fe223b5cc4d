// Lint rules: typescript-eslint for the code, and the purity rule for machines/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const effectModules = [
  'dockerode', 'fs', 'node:fs', 'fs/promises', 'node:fs/promises',
  'child_process', 'node:child_process', 'http', 'node:http', 'https', 'node:https',
  'net', 'node:net', 'undici', 'isomorphic-git', '@octokit/rest', 'prompts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'examples/**', 'coverage/**', 'test/capabilities/corpus/**', 'test/fixtures/real/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-ignore': true }],
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: effectModules.map((name) => ({ name, message: 'machines/ is pure: effects are named in setup() and provided in the composition root (src/app/root.ts).' })),
        patterns: [{ group: ['../src/*', '../src/**'], message: 'machines/ must not import runtime code from src/.' }],
      }],
      'no-console': 'error',
    },
  },
);
