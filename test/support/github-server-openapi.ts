// Checks the local GitHub server's responses against the vendored excerpt of GitHub's OpenAPI description (test/fixtures/github).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Exchange } from './github-server.js';

interface Excerpt {
  operations: Record<string, Record<string, string>>;
  schemas: Record<string, object>;
}

const excerpt = JSON.parse(readFileSync(new URL('../fixtures/github/openapi-excerpt.json', import.meta.url), 'utf8')) as Excerpt;
const defs = JSON.parse(JSON.stringify(excerpt.schemas).replaceAll('"#/schemas/', '"#/$defs/')) as Record<string, object>;

function schemaFor(name: string): z.ZodType {
  return z.fromJSONSchema({ $ref: `#/$defs/${name}`, $defs: defs } as Parameters<typeof z.fromJSONSchema>[0]);
}

/** The problems of `exchange` against the excerpt; empty when it matches the published schema of its operation and status. */
export function openApiProblems(exchange: Exchange): string[] {
  const name = excerpt.operations[exchange.operation]?.[String(exchange.status)];
  if (!name) return [`${exchange.operation} ${exchange.status} is not a documented response`];
  const result = schemaFor(name).safeParse(exchange.body);
  return result.success ? [] : result.error.issues.map((issue) => `${exchange.operation} ${exchange.status} ${issue.path.join('.')}: ${issue.message}`);
}
