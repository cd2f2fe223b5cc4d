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

it('/vm-config without --save lasts for its session only: it says so, writes no config, and the next process has the saved defaults', async () => {
  const { project, home } = await tempProject('cadre-vm-config-session-');
  const { readdir } = await import('node:fs/promises');
  type ConfigEvent = { type: string; kind?: string; data?: { settings?: { services?: string[]; memoryBytes?: number }; saved?: boolean; savedIn?: string } };
  const configResult = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as ConfigEvent).find((e) => e.kind === 'vm.config');
  const first = await runCli(['--json', '-c', '/vm-config --services postgres --memory 768MB'], { cwd: project, home });
  expect(first.code).toBe(0);
  expect(configResult(first.stdout)).toMatchObject({ data: { settings: { services: ['postgres'], memoryBytes: 768 * 1024 ** 2 }, saved: false } });
  expect(configResult(first.stdout)?.data?.savedIn).toBeUndefined();
  expect(await readdir(home)).not.toContain('config.json');
  const second = await runCli(['--json', '-c', '/vm-config'], { cwd: project, home });
  expect(configResult(second.stdout)?.data?.settings).toMatchObject({ services: [], memoryBytes: 2 * 1024 ** 3 });
  const text = await runCli(['-c', '/vm-config --cpu 1'], { cwd: project, home });
  expect(text.stdout).toMatch(/For this session only: later sessions start from your saved defaults \(add --save to keep this change\)\./);
});

it('/vm-config --save in one cadre process sets the defaults of the next one: saved in the user config, other keys kept', async () => {
  const { project, home } = await tempProject('cadre-vm-config-persist-');
  const { mkdir, readFile, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const configFile = join(home, 'config.json');
  await mkdir(home, { recursive: true });
  await writeFile(configFile, `${JSON.stringify({ model: { provider: 'offline' }, vm: { cpu: 1 } })}\n`, { mode: 0o600 });
  const events = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { type: string; kind?: string; data?: { settings?: { services?: string[]; memoryBytes?: number; cpus?: number }; saved?: boolean; savedIn?: string } });
  const first = await runCli(['--json', '-c', '/vm-config --services postgres --memory 768MB --save'], { cwd: project, home });
  expect(first.code).toBe(0);
  expect(events(first.stdout).find((e) => e.kind === 'vm.config')?.data).toMatchObject({ saved: true, savedIn: configFile });
  const second = await runCli(['--json', '-c', '/vm-config'], { cwd: project, home });
  expect(events(second.stdout).find((e) => e.kind === 'vm.config')?.data?.settings).toMatchObject({ services: ['postgres'], memoryBytes: 768 * 1024 ** 2, cpus: 1 });
  const saved = JSON.parse(await readFile(configFile, 'utf8')) as { model: unknown; vm: unknown };
  expect(saved).toEqual({ model: { provider: 'offline' }, vm: { cpu: 1, services: ['postgres'], memory: '768MB' } });
});

it('/vm-config leaves a user config it cannot parse as it is and says so', async () => {
  const { project, home } = await tempProject('cadre-vm-config-broken-');
  const { mkdir, readFile, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const configFile = join(home, 'config.json');
  await mkdir(home, { recursive: true });
  const broken = '{ "vm": { "cpu": 1, } ';
  await writeFile(configFile, broken);
  const ran = await runCli(['--json', '-c', '/vm-config --services redis --save'], { cwd: project, home });
  expect(ran.code).toBe(2);
  expect(await readFile(configFile, 'utf8')).toBe(broken);
});

it('/vm-config saves what it accepts: a fraction of a core and a size with a space reach the next process', async () => {
  const { project, home } = await tempProject('cadre-vm-config-fraction-');
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const first = await runCli(['--json', '-c', '/vm-config --cpu 1.5 --memory "1.5 GB" --save'], { cwd: project, home });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  expect(JSON.parse(await readFile(join(home, 'config.json'), 'utf8'))).toEqual({ vm: { cpu: 1.5, memory: '1.5GB' } });
  const second = await runCli(['--json', '-c', '/vm-config'], { cwd: project, home });
  const settings = second.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { kind?: string; data?: { settings?: unknown } }).find((e) => e.kind === 'vm.config')?.data?.settings;
  expect(settings).toMatchObject({ cpus: 1.5, memoryBytes: 1.5 * 1024 ** 3 });
});
