// The runner takes its credential from stdin only where the commands it starts cannot read it back: a readable Node refuses.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseRunnerEvent } from '../../src/runner/events.js';
import { makeGitWorkspace, useRunnerBundle } from './support.js';

const { bundle, cleanups } = useRunnerBundle();

it('a runner whose Node the commands could read (dumpable) refuses the credential on its stdin and says what to do', async () => {
  const workspace = makeGitWorkspace({ 'README.md': '# x\n' });
  const child = spawn(process.execPath, [join(bundle(), 'cadre-runner.mjs'), '--task', 'x', '--credentials-on-stdin'], {
    env: { PATH: process.env.PATH ?? '', CADRE_RUNNER_WORKSPACE: workspace, CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill());
  child.stdin.end('{"ANTHROPIC_API_KEY":"eyJ.session.jwt"}\n');
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise((resolve) => child.once('close', resolve));
  expect(code).toBe(1);
  const events = out.trim().split('\n').map((line) => parseRunnerEvent(line));
  expect(events).toEqual([expect.objectContaining({ type: 'runner.failed', code: 'runner.credential-exposed', remedy: expect.stringContaining('/usr/local/libexec/cadre/node') })]);
  expect(out).not.toContain('eyJ.session.jwt');
});
