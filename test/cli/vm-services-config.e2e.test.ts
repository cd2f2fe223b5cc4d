// /vm-config --services through the real CLI: defaults for new containers, aliases folded, MongoDB refused plainly with what
// to do, an unknown name listing the ones that exist (no Docker needed: nothing is started by configuring).
import { expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';

async function cadreJson(commands: string[]): Promise<{ code: number | null; events: { type: string; kind?: string; data?: { settings?: { services?: string[] } }; code?: string; message?: string; remedy?: string }[] }> {
  const { project, home } = await tempProject('cadre-vm-services-config-');
  const ran = await runCli(['--json', ...commands.flatMap((command) => ['-c', command])], { cwd: project, home });
  return { code: ran.code, events: ran.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as never) };
}

it('/vm-config --services sets the services of new containers, and --services "" none', async () => {
  const { code, events } = await cadreJson(['/vm-config --services "PostgreSQL, redis, pg"', '/vm-config --services ""']);
  expect(code).toBe(0);
  const results = events.filter((e) => e.type === 'output.result' && e.kind === 'vm.config');
  expect(results.map((e) => e.data?.settings?.services)).toEqual([['postgres', 'redis'], []]);
});

it('/vm-config --services mongodb says MongoDB is not in Debian and what to do; an unknown service lists the known ones', async () => {
  const mongo = await cadreJson(['/vm-config --services "postgres,mongodb"']);
  expect(mongo.code).toBe(2);
  expect(mongo.events.find((e) => e.type === 'output.error')).toMatchObject({
    code: 'vm.service-unavailable', message: expect.stringContaining('MongoDB is not packaged by Debian'), remedy: expect.stringContaining('postgres, mysql and redis can run'),
  });
  const unknown = await cadreJson(['/vm-config --services cassandra']);
  expect(unknown.events.find((e) => e.type === 'output.error')).toMatchObject({ code: 'vm.unknown-service', message: 'Unknown service: cassandra.' });
});
