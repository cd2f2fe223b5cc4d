// Every vm command takes its container the same way (a positional id, --container as its alias, else the last container of the
// session), through real `cadre -c` processes and without Docker: each fails on the id before any container is looked up, or
// looks up the id it was given at an engine that does not answer (which names that id). The default-to-last path with a real
// container is in vm-container-default.e2e.test.ts.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { isError, startPipedCadre, type JsonEvent } from './vm-cadre.js';

/** `cadre --json -c command` in a fresh project and home; its exit code and its errors and results. */
async function cadreJson(command: string, env: Record<string, string> = {}): Promise<{ code: number | null; events: JsonEvent[] }> {
  const { project, home } = await tempProject('cadre-vm-id-');
  const ran = await runCli(['--json', '-c', command], { cwd: project, home, env });
  const events = ran.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent);
  return { code: ran.code, events: events.filter((e) => e.type === 'output.error' || e.type === 'output.result') };
}

/** Each vm command that acts on one container, written without an id, and what it takes after the id in its usage. */
const withoutId: [command: string, usage: string][] = [
  ['/vm-restart', '/vm-restart <container_id>'],
  ['/vm-monitor --resources', '/vm-monitor <container_id>'],
  ['/vm-cleanup --yes', '/vm-cleanup <container_id>'],
  ['/vm-install-deps --auto-detect', '/vm-install-deps <container_id>'],
  ['/vm-setup-dev --tools git', '/vm-setup-dev <container_id>'],
  ['/vm-editor', '/vm-editor <container_id>'],
  ['/vm-create-pr "Add a health endpoint" "GET /health answers 200."', '/vm-create-pr <container_id> "<title>"'],
  ['/agent vm-agent "make the tests pass"', '/agent vm-agent <container_id> "<task>"'],
  ['/agent vm-agent --continue', '/agent vm-agent --continue <container_id>'],
];

it.each(withoutId)('%s with no id and no container in the session says what is missing, why, and how to name or make one', async (command, usage) => {
  const { code, events } = await cadreJson(command);
  expect(code).toBe(2);
  expect(events).toEqual([{
    type: 'output.error',
    code: 'vm.no-container',
    message: expect.stringMatching(/needs a container: none was named, and this session has no container to default to \(the last one it created or used\)/),
    remedy: expect.stringContaining(`name it: ${usage}`),
  }]);
  expect(events[0]?.remedy).toContain('/vm-create <repo_url>');
});

const positional = [
  '/vm-install-deps vm-5a3c --auto-detect',
  '/vm-setup-dev vm-5a3c --tools git',
  '/vm-editor vm-5a3c',
  '/vm-restart vm-5a3c',
  '/vm-monitor vm-5a3c --resources',
  '/vm-cleanup vm-5a3c --yes',
  '/vm-status vm-5a3c',
  '/vm-config vm-5a3c --memory 1GB',
  '/vm-create-pr vm-5a3c "Add a health endpoint"',
  '/agent vm-agent vm-5a3c "make the tests pass"',
  '/agent vm-agent --continue vm-5a3c',
];

it('every vm command takes the id as a positional or as --container, and looks that container up', async () => {
  // An engine address where nothing answers: a command that took the id looks it up there, and its error names the id.
  const { project, home } = await tempProject('cadre-vm-id-engine-');
  const cadre = startPipedCadre(project, home, { DOCKER_HOST: `unix://${join(home, 'no-engine.sock')}` });
  try {
    for (const command of [...positional, ...positional.map((line) => line.replace(' vm-5a3c', ' --container vm-5a3c'))]) {
      const answer = await cadre.run(command, isError, 60_000);
      expect(answer, command).toMatchObject({ code: 'docker-unreachable', message: expect.stringContaining('container vm-5a3c') });
    }
  } finally {
    cadre.end();
    await cadre.exited;
  }
});

it('a positional id and a different --container are refused, naming both', async () => {
  const { code, events } = await cadreJson('/vm-restart vm-1111 --container vm-2222');
  expect(code).toBe(2);
  expect(events).toEqual([expect.objectContaining({ code: 'vm.container-twice', message: '/vm-restart was given two containers: vm-1111 and --container vm-2222.' })]);
});

it('/vm-create-pr with only a title takes the last container; with --container, two words are the title and description', async () => {
  expect((await cadreJson('/vm-create-pr "Fix the build"')).events[0]).toMatchObject({ code: 'vm.no-container' });
  const { home } = await tempProject('cadre-vm-id-engine-');
  const flagged = await cadreJson('/vm-create-pr "Fix the build" "It failed on Node 20." --container vm-5a3c', { DOCKER_HOST: `unix://${join(home, 'no-engine.sock')}` });
  expect(flagged.events[0]).toMatchObject({ code: 'docker-unreachable', message: expect.stringContaining('container vm-5a3c') });
  const untitled = await cadreJson('/vm-create-pr vm-5a3c');
  expect(untitled.events[0]).toMatchObject({ code: 'command.bad-argument', message: expect.stringContaining('Missing "<title>"') });
});
