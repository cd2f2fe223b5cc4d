// A generated endpoint's test in the project's runner: an invalid body gets a 400 before any database query (needs no database).
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { runnerPreamble, testRunnerOf } from './component-test.js';
import { type Conventions, importSpecifier } from './conventions.js';
import { formatSource } from './format.js';
import type { EndpointTask } from './task.js';

export async function endpointTestSource(task: EndpointTask, input: { context: ProjectContext; conventions: Conventions; server: 'Express' | 'Fastify'; routePath: string; hasBody: boolean; read: (path: string) => Promise<string | null> }): Promise<PlanStep | null> {
  const runner = testRunnerOf(input.context);
  if (!runner || !input.hasBody) return null;
  const app = await appFactory(input.context, input.server, input.read);
  if (!app) return null;
  const testPath = posix.join(posix.dirname(input.routePath), `${posix.basename(input.routePath).replace(/\.[jt]s$/, '')}.test.${input.conventions.typescript ? 'ts' : 'js'}`);
  if (input.context.files[testPath]) return null;
  const preamble = runnerPreamble(runner);
  const typed = input.conventions.typescript;
  const url = task.path.replace(/:(\w+)/g, (_match, name: string) => (name === 'id' ? '1' : `sample-${name}`));
  const equal = (actual: string, expected: string): string => (runner === 'node:test' ? `assert.equal(${actual}, ${expected});` : `expect(${actual}).toBe(${expected});`);
  const make = app.kind === 'factory' ? `${app.name}()` : app.name;
  const importApp = `import { ${app.name} } from '${importSpecifier(testPath, app.path, input.conventions)}';`;
  const lines = input.server === 'Express'
    ? [
      `// ${task.method} ${task.path}: an invalid body is rejected with 400 before it reaches the database.`,
      'import { once } from \'node:events\';',
      ...(typed ? ['import type { Server } from \'node:http\';', 'import type { AddressInfo } from \'node:net\';'] : []),
      ...preamble.imports.map((line) => line.replace('{ describe, expect, it }', '{ afterAll, beforeAll, describe, expect, it }').replace('{ describe, it }', '{ after, before, describe, it }')),
      importApp,
      '',
      `describe('${task.method} ${task.path}', () => {`,
      `  let server${typed ? ': Server' : ''};`,
      `  ${runner === 'node:test' ? 'before' : 'beforeAll'}(async () => {`,
      `    server = ${make}.listen(0, '127.0.0.1');`,
      '    await once(server, \'listening\');',
      '  });',
      `  ${runner === 'node:test' ? 'after' : 'afterAll'}(() => {`,
      '    server.close();',
      '  });',
      '',
      '  it(\'rejects an invalid body with 400\', async () => {',
      `    const { port } = server.address()${typed ? ' as AddressInfo' : ''};`,
      `    const response = await fetch(\`http://127.0.0.1:\${port}${url}\`, { method: '${task.method}', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ${task.fields[0]?.name ?? 'unexpected'}: null }) });`,
      `    ${equal('response.status', '400')}`,
      '  });',
      '});',
    ]
    : [
      `// ${task.method} ${task.path}: an invalid body is rejected with 400 before it reaches the database.`,
      ...preamble.imports,
      importApp,
      '',
      `describe('${task.method} ${task.path}', () => {`,
      '  it(\'rejects an invalid body with 400\', async () => {',
      `    const app = ${app.kind === 'factory' ? `await ${app.name}()` : app.name};`,
      `    const response = await app.inject({ method: '${task.method}', url: '${url}', payload: { ${task.fields[0]?.name ?? 'unexpected'}: null } });`,
      `    ${equal('response.statusCode', '400')}`,
      '  });',
      '});',
    ];
  return { action: 'create-tests', path: testPath, summary: `${runner} test: ${task.method} ${task.path} rejects an invalid body with 400`, content: formatSource(lines.join('\n'), input.conventions.style) };
}

/** The exported app factory (createApp, buildApp, build…) or app instance, and its file. */
async function appFactory(context: ProjectContext, server: 'Express' | 'Fastify', read: (path: string) => Promise<string | null>): Promise<{ kind: 'factory' | 'instance'; name: string; path: string } | null> {
  const module = server === 'Express' ? 'express' : 'fastify';
  for (const [path, entry] of Object.entries(context.files)) {
    if (!entry.facts?.imports.some((fact) => fact.source === module)) continue;
    const text = (await read(path)) ?? '';
    const factory = entry.facts.symbols.find((symbol) => symbol.exported && symbol.kind === 'function' && /^(?:create|build|make)(?:App|Server)?$|^(?:app|server)$/i.test(symbol.name));
    if (factory && /\b(?:express\(\s*\)|[Ff]astify\()/.test(text)) return { kind: 'factory', name: factory.name, path };
    const instance = entry.facts.symbols.find((symbol) => symbol.exported && symbol.kind === 'variable' && /^(?:app|server)$/.test(symbol.name));
    if (instance) return { kind: 'instance', name: instance.name, path };
  }
  return null;
}
