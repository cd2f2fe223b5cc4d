// Which services a repository's tests expect, from its compose files, its example .env, its ORM config and its dependencies:
// a suggestion to show, never a reason to start anything.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readMetadata } from '../metadata.js';
import { serviceNames, type ServiceName } from './catalog.js';

type Found = ServiceName | 'mongodb';

export interface ServiceSuggestion {
  /** Services cadre can run, in catalog order. */
  services: ServiceName[];
  /** Services the repository needs that cadre cannot run (MongoDB). */
  unsupported: 'mongodb'[];
  /** Where each was seen, e.g. `docker-compose.yml: image mysql:8.4`. */
  evidence: string[];
}

const composeFiles = ['docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml', '.devcontainer/docker-compose.yml', '.devcontainer/compose.yaml'];
const envFiles = ['.env.example', '.env.sample', '.env.template', '.env.dist', '.env.test', 'env.example'];

function fromImage(image: string): Found | undefined {
  const name = image.split('/').pop()!.split(':')[0]!.toLowerCase();
  if (/^(postgres|postgis|postgresql)$/.test(name)) return 'postgres';
  if (/^(mysql|mariadb)$/.test(name)) return 'mysql';
  if (/^(redis|valkey)$/.test(name)) return 'redis';
  if (/^mongo(db)?$/.test(name)) return 'mongodb';
  return undefined;
}

function fromUrl(value: string): Found | undefined {
  const scheme = /^\s*["']?([a-z+]+):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (!scheme) return undefined;
  if (scheme.startsWith('postgres')) return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  if (scheme.startsWith('redis')) return 'redis';
  if (scheme.startsWith('mongodb')) return 'mongodb';
  return undefined;
}

function fromVariable(name: string): Found | undefined {
  if (/^(PG(HOST|USER|DATABASE|PASSWORD)|POSTGRES_[A-Z_]+)$/.test(name)) return 'postgres';
  if (/^(MYSQL|MARIADB)_[A-Z_]+$/.test(name)) return 'mysql';
  if (/^REDIS_[A-Z_]+$/.test(name)) return 'redis';
  if (/^MONGO(DB)?_[A-Z_]+$/.test(name)) return 'mongodb';
  return undefined;
}

const dependencyServices: Record<string, Found> = {
  pg: 'postgres', postgres: 'postgres', 'pg-promise': 'postgres', mysql: 'mysql', mysql2: 'mysql', mariadb: 'mysql',
  redis: 'redis', ioredis: 'redis', mongoose: 'mongodb', mongodb: 'mongodb',
};

/** A small regular file of the repository as text; '' for anything else (missing, a link, a pipe, over 1 MB). */
async function read(root: string, file: string): Promise<string> {
  const info = await lstat(join(root, file)).catch(() => undefined);
  if (!info?.isFile() || info.size > 1024 * 1024) return '';
  return readFile(join(root, file), 'utf8').catch(() => '');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads at most a few small files of the repository at `root`; never fails (an unreadable file is no evidence). */
export async function detectServices(root: string): Promise<ServiceSuggestion> {
  const found = new Map<Found, string[]>();
  const note = (service: Found | undefined, where: string) => {
    if (service) found.set(service, [...(found.get(service) ?? []), where]);
  };
  for (const file of composeFiles) {
    for (const match of (await read(root, file)).matchAll(/^\s*image:\s*["']?([\w./:@-]+)/gm)) note(fromImage(match[1]!), `${file}: image ${match[1]}`);
  }
  for (const file of envFiles) {
    for (const match of (await read(root, file)).matchAll(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/gm)) {
      note(fromUrl(match[2]!) ?? fromVariable(match[1]!), `${file}: ${match[1]}`);
    }
  }
  const prisma = /datasource\s+\w+\s*{[^}]*provider\s*=\s*"(\w+)"/.exec(await read(root, 'prisma/schema.prisma'))?.[1];
  if (prisma) note(prisma === 'postgresql' ? 'postgres' : prisma === 'mysql' ? 'mysql' : prisma === 'mongodb' ? 'mongodb' : undefined, `prisma/schema.prisma: provider ${prisma}`);
  // A repository without a package.json, or with one that is not JSON, is no evidence either way.
  const parsed = parseJson(await read(root, 'package.json'));
  const manifest = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { dependencies?: unknown; devDependencies?: unknown };
  const listed = (value: unknown): string[] => (typeof value === 'object' && value !== null ? Object.keys(value) : []);
  const dependencies = [...listed(manifest.dependencies), ...listed(manifest.devDependencies)];
  for (const name of dependencies) note(dependencyServices[name], `package.json: ${name}`);
  const order: ServiceName[] = ['postgres', 'mysql', 'redis'];
  return {
    services: order.filter((service) => found.has(service)),
    unsupported: found.has('mongodb') ? ['mongodb'] : [],
    evidence: [...found.values()].map((where) => where[0]!),
  };
}

const suggestionSchema = z.object({ services: z.array(z.enum(serviceNames)), unsupported: z.array(z.literal('mongodb')), evidence: z.array(z.string()) });

/**
 * What a new workspace's repository suggests: recorded beside it (`root`) from cadre's own clone when the workspace is on
 * another machine (that clone is gone once streamed over), otherwise read from its files (`dir`).
 */
export async function workspaceSuggestion(paths: { root: string; dir: string }): Promise<ServiceSuggestion> {
  const recorded = suggestionSchema.safeParse((await readMetadata(paths.root)).serviceSuggestion);
  return recorded.success ? recorded.data : detectServices(paths.dir);
}
