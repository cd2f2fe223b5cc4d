// The session's /model choice travels with the session: /save then /resume (and --resume) bring it back; a model the provider no longer serves falls back, said plainly.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(models: string[], replies: number) {
  const server = await startModelServer({ script: { turns: Array.from({ length: replies }, () => ({ text: 'Done.' })) }, models: models.map((id) => ({ id, contextWindow: 32_768 })) });
  servers.push(server);
  return server;
}

async function demo() {
  const { project, home } = await tempProject();
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'demo' }));
  const cadre = (server: ModelServer, args: string[]) =>
    runCli(args, { cwd: project, home, env: { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456' } });
  return cadre;
}

it('/model then /save: /resume and --resume in a new cadre use the chosen model again, and /status says so', async () => {
  const cadre = await demo();
  const first = await serve(['scripted', 'qwen-large'], 0);
  const saved = await cadre(first, ['-c', '/model qwen-large', '-c', '/save feature-x']);
  expect(saved.code).toBe(0);

  const second = await serve(['scripted', 'qwen-large'], 2);
  const resumed = await cadre(second, ['-c', '/resume feature-x', '-c', '/agent universal-agent "Explain the project"', '-c', '/status']);
  expect(resumed.code).toBe(0);
  expect(second.requests[0]?.body.model).toBe('qwen-large');
  expect(resumed.stdout).toMatch(/Model {7}openai-compatible · qwen-large .*; chosen with \/model/);

  const atStart = await cadre(second, ['--resume', 'feature-x', '-c', '/agent universal-agent "And now?"']);
  expect(atStart.code).toBe(0);
  expect(second.requests[1]?.body.model).toBe('qwen-large');
});

it('a saved model the provider no longer serves: the resumed session says so and uses the configured model', async () => {
  const cadre = await demo();
  const before = await serve(['scripted', 'qwen-large'], 0);
  expect((await cadre(before, ['-c', '/model qwen-large', '-c', '/save feature-x'])).code).toBe(0);

  const after = await serve(['scripted'], 2);
  const resumed = await cadre(after, ['-c', '/resume feature-x', '-c', '/agent universal-agent "Explain the project"', '-c', '/save feature-x']);
  expect(resumed.code).toBe(0);
  expect(resumed.stderr + resumed.stdout).toContain('The saved session used the model "qwen-large", but openai-compatible does not serve a model named "qwen-large". It uses the configured model instead: openai-compatible · scripted');
  expect(after.requests[0]?.body.model).toBe('scripted');

  // The session forgot the choice: resuming again says nothing more and keeps the configured model.
  const again = await cadre(after, ['-c', '/resume feature-x', '-c', '/agent universal-agent "Again"']);
  expect(again.stderr + again.stdout).not.toContain('The saved session used the model');
  expect(after.requests[1]?.body.model).toBe('scripted');
});
