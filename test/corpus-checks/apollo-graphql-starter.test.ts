// chaycarnell/apollo-graphql-starter (Apollo Server 4, ESLint with simple-import-sort's default groups), vendored in
// test/fixtures/real: imports cadre writes into a new file and adds to an existing one pass the project's own ESLint.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { applyEdits, parseExisting } from '../../src/capabilities/generation/ast-edit.js';
import { addImportEdits, importBlock } from '../../src/capabilities/generation/imports.js';
import { printSource } from '../../src/capabilities/generation/printer.js';
import { analyzeProject } from '../../src/project/context.js';
import { vendoredDependencies } from './support/vendored.js';

const run = promisify(execFile);
const fixture = resolve('test/fixtures/real/apollo-graphql-starter');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('a new resolver\'s imports and an import added to apolloServer.ts are ordered as simple-import-sort wants: the project\'s ESLint passes', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-apollo-'));
  folders.push(folder);
  const root = join(folder, 'project');
  await cp(fixture, root, { recursive: true });
  const { context } = await analyzeProject({ cwd: root });
  const style = { ...context.style, commonjs: false };
  const resolver = 'src/schemas/reviews/reviews.resolver.ts';
  const block = importBlock([
    { source: './mock', named: ['mockReviews'] },
    { source: '../../utils/logger', default: 'logger' },
    { source: 'uuid', named: ['v4'] },
    { source: 'node:crypto', named: ['randomUUID'] },
    { source: '../../types/graphql-generated', named: ['Resolvers'] },
    { source: 'graphql', named: ['GraphQLError'] },
  ], style);
  expect(block.split('\n')).toEqual([
    'import { randomUUID } from \'node:crypto\';',
    '',
    'import { GraphQLError } from \'graphql\';',
    'import { v4 } from \'uuid\';',
    '',
    'import { Resolvers } from \'../../types/graphql-generated\';',
    'import logger from \'../../utils/logger\';',
    'import { mockReviews } from \'./mock\';',
  ]);
  await mkdir(join(root, 'src/schemas/reviews'), { recursive: true });
  await writeFile(join(root, 'src/schemas/reviews/mock.ts'), 'export const mockReviews = [];\n');
  const body = 'const reviewsResolver: Resolvers = {\n  Query: {\n    orders: () => {\n      logger.info(randomUUID(), v4(), mockReviews);\n      throw new GraphQLError(\'not yet\');\n    },\n  },\n};\n\nexport default reviewsResolver;\n';
  await writeFile(join(root, resolver), await printSource(resolver, `${block}\n\n${body}`, context.style));
  const server = 'src/apolloServer.ts';
  const text = await readFile(join(root, server), 'utf8');
  const edits = await addImportEdits(server, text, parseExisting(server, text), [{ source: './schemas/reviews/reviews.resolver', default: 'reviewsResolver' }, { source: '@apollo/server/errors', named: ['ApolloServerErrorCode'] }], style);
  const edited = applyEdits(server, text, edits, 'test');
  await writeFile(join(root, server), `${edited}\nexport { ApolloServerErrorCode, reviewsResolver };\n`);
  await symlink(await vendoredDependencies(fixture), join(root, 'node_modules'));
  const lint = await run(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '--max-warnings', '0', resolver, server], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root } }).then(
    () => ({ ok: true, output: '' }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
  expect(lint.output).toBe('');
  expect(lint.ok).toBe(true);
}, 900_000);
