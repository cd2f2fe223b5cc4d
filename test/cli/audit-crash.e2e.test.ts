// cadre audit verify after kill -9: a real cadre's log without its closing record is "ended by a crash" (exit 5), also with
// its last line cut mid-record; an edit, a cut below what cadre recorded, a torn line in the middle, or no crash on record
// stays tampering (exit 1).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';

const verify = async (file: string, cwd: string, home: string) => {
  const run = await runCli(['--json', 'audit', 'verify', file], { cwd, home });
  return { code: run.code, said: run.stdout };
};

it('tells a crashed session\'s log from a tampered one', async () => {
  const { project, home } = await tempProject('cadre-audit-crash-');
  const cadre = spawn(process.execPath, [cadreBin, '--json'], {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  cadre.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  cadre.stdin.write('/status\n');
  for (let waited = 0; !out.includes('"status"') && waited < 600; waited += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const closed = new Promise((resolve) => cadre.once('close', resolve));
  cadre.kill('SIGKILL');
  await closed;
  const auditDir = join(home, 'audit');
  const [name] = readdirSync(auditDir).filter((entry) => entry.endsWith('.jsonl'));
  const log = join(auditDir, name!);
  const lines = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  const lastTs = (JSON.parse(lines.at(-1)!) as { ts: string }).ts;

  const crashed = await verify(log, project, home);
  expect(crashed.code).toBe(5);
  expect(crashed.said).toContain(`ended by a crash at ${lastTs}`);
  expect(crashed.said).toContain(`records up to ${lines.length} intact`);
  expect(crashed.said).toContain('"code":"audit.crashed"');

  // The crash cut the last record mid-line: still a crash, nothing more excused.
  const original = await readFile(log, 'utf8');
  await writeFile(log, `${original}{"seq":${lines.length + 1},"ts":"20`);
  const torn = await verify(log, project, home);
  expect(torn.code).toBe(5);
  expect(torn.said).toContain('cut its last line mid-record');

  // A record edited in the middle: tampering, though the crash is on record.
  const edited = [...lines];
  edited[0] = edited[0]!.replace('"session.started"', '"session.startet"');
  await writeFile(log, `${edited.join('\n')}\n`);
  expect(await verify(log, project, home)).toMatchObject({ code: 1, said: expect.stringContaining('audit.tampered') });

  // A torn line that is not the last one: tampering.
  await writeFile(log, `${lines.slice(0, -1).join('\n')}\n{"seq":${lines.length},"ts":"20\n${lines.at(-1)!}\n`);
  expect((await verify(log, project, home)).code).toBe(1);

  // Cut below what cadre recorded as written: tampering.
  await writeFile(log, `${lines.slice(0, -1).join('\n')}\n`);
  expect((await verify(log, project, home)).code).toBe(1);

  // The whole log, but no crash on record (its marker gone): tampering, as before.
  await writeFile(log, original);
  await copyFile(`${log}.live`, `${log}.live.kept`);
  await rm(`${log}.live`);
  expect((await verify(log, project, home)).code).toBe(1);
  await copyFile(`${log}.live.kept`, `${log}.live`);
  expect((await verify(log, project, home)).code).toBe(5);
}, 60_000);
