// Service detection on real projects of the corpus: what their compose files, example .env, ORM config and dependencies say
// their tests need, as MANIFEST.json records it (MySQL for fastify-demo, PostgreSQL + MongoDB for nestjs-boilerplate...).
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseServiceList } from '../../src/container/services/catalog.js';
import { detectServices } from '../../src/container/services/detect.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';

const names = ['fastify-demo', 'nestjs-boilerplate', 'node-express-boilerplate', 'taxonomy', 'vulnerable-node', 'shadcn-admin'] as const;
const copies = new Map<string, CorpusCopy>();
beforeAll(() => {
  for (const name of names) copies.set(name, unpackCorpus(name));
});
afterAll(() => {
  for (const copy of copies.values()) copy.dispose();
});

it.each([
  ['fastify-demo', ['mysql'], [], 'docker-compose.yml: image mysql:8.4'],
  ['nestjs-boilerplate', ['postgres'], ['mongodb'], 'docker-compose.yaml: image postgres:17.9-alpine'],
  ['node-express-boilerplate', [], ['mongodb'], 'docker-compose.yml: image mongo:4.2.1-bionic'],
  ['taxonomy', ['mysql'], [], '.env.example: DATABASE_URL'],
  ['vulnerable-node', ['postgres'], [], 'package.json: pg-promise'],
  ['shadcn-admin', [], [], undefined],
] as const)('%s: suggests %j, cannot run %j', async (name, services, unsupported, evidence) => {
  const found = await detectServices(copies.get(name)!.root);
  expect(found.services).toEqual(services);
  expect(found.unsupported).toEqual(unsupported);
  if (evidence) expect(found.evidence).toContain(evidence);
  else expect(found.evidence).toEqual([]);
});

it('a repository with unreadable or hostile files suggests nothing and does not fail', async () => {
  const root = await mkdtemp(join(tmpdir(), 'cadre-detect-'));
  try {
    await writeFile(join(root, 'package.json'), 'null');
    await writeFile(join(root, 'docker-compose.yml'), 'services:\n  x:\n    image: "\n');
    await writeFile(join(root, '.env.example'), 'DATABASE_URL=sqlite://dev.db\n'.repeat(1000));
    await expect(detectServices(root)).resolves.toEqual({ services: [], unsupported: [], evidence: [] });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

it('a repository without a package.json, or with one that is not JSON or not a file, suggests nothing and does not fail', async () => {
  const root = await mkdtemp(join(tmpdir(), 'cadre-detect-'));
  try {
    await expect(detectServices(root)).resolves.toEqual({ services: [], unsupported: [], evidence: [] });
    await writeFile(join(root, 'package.json'), '{ "dependencies": ');
    await expect(detectServices(root)).resolves.toEqual({ services: [], unsupported: [], evidence: [] });
    await rm(join(root, 'package.json'));
    await symlink('/dev/zero', join(root, 'package.json'));
    await expect(detectServices(root)).resolves.toEqual({ services: [], unsupported: [], evidence: [] });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

it('MongoDB is refused plainly with what to do; unknown names list the ones that exist', () => {
  expect(parseServiceList('PostgreSQL, redis,pg')).toEqual(['postgres', 'redis']);
  expect(parseServiceList('mariadb')).toEqual(['mysql']);
  expect(parseServiceList('')).toEqual([]);
  expect(() => parseServiceList('postgres,mongo')).toThrow(expect.objectContaining({ code: 'vm.service-unavailable', message: expect.stringMatching(/MongoDB is not packaged by Debian/) }));
  expect(() => parseServiceList('cassandra')).toThrow(expect.objectContaining({ code: 'vm.unknown-service', remedy: expect.stringContaining('postgres, mysql (MariaDB) and redis') }));
});
