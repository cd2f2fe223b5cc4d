// Model-based tests of the root cli statechart: one test per (state, handled event), one for the events each state ignores, full coverage.
import { cliMachine } from '../../machines/cli.machine.js';
import { defineModelTests, pendingPromise } from '../support/model-test.js';

defineModelTests({
  name: 'cli',
  machine: cliMachine,
  scenarios: [{ label: 'a project', input: { cwd: '/tmp/project', session: { name: 'default' } } }],
  implementations: { actors: { startUp: pendingPromise(), runCommand: pendingPromise(), shutDown: pendingPromise() } },
  events: [
    { type: 'input.line', text: '/status' },
    { type: 'input.interrupt' },
    { type: 'input.eof' },
    { type: 'xstate.done.actor.startUp' },
    { type: 'xstate.error.actor.startUp', error: new Error('config is invalid') },
    { type: 'xstate.done.actor.runCommand', output: { exitCode: 3 } },
    { type: 'xstate.done.actor.runCommand', output: { exitCode: 0, exit: true } },
    { type: 'xstate.error.actor.runCommand', error: new Error('bug') },
    { type: 'xstate.done.actor.shutDown' },
    { type: 'xstate.error.actor.shutDown', error: new Error('autosave failed') },
    { type: 'container.spawn', input: { containerId: 'vm-3f2a', repoUrl: 'http://127.0.0.1/r.git', deadline: 4_102_444_800_000, limits: { memoryBytes: 1, nanoCpus: 1, pidsLimit: 1, diskBytes: 1 } } },
    { type: 'container.forget', containerId: 'vm-3f2a' },
    { type: 'pool.spawn', input: { size: 0, fit: 'a' } },
    { type: 'audit.failed', code: 'audit.write-failed', message: 'disk full', remedy: 'free space' },
  ],
});
