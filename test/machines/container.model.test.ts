// Model-based tests of the container statechart: one test per (state, handled event), one for the events each state ignores, full coverage.
import { containerMachine } from '../../machines/container.machine.js';
import { defineModelTests, pendingPromise, silentCallback } from '../support/model-test.js';

const input = {
  containerId: 'c1',
  repoUrl: 'http://127.0.0.1:9/repo.git',
  limits: { memoryBytes: 2 ** 31, nanoCpus: 2e9, pidsLimit: 256, diskBytes: 2 ** 32 },
};

const pooled = { dockerId: 'd0cker', pooled: true, workspace: { root: '/w/c1', dir: '/w/c1/workspace', disk: { mechanism: 'watchdog' as const, limitBytes: 1 } } };

const failure = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(`${id} failed`) });

defineModelTests({
  name: 'container',
  machine: containerMachine,
  // The context but for what is carried without deciding anything: how many restarts (counted without bound), env, network
  // and limits (the reconfigure samples would multiply every state by them), and of a change under way only its phase and
  // whether it reaches the gateway.
  abstract: ({ value, context: { generation: _generation, env: _env, network: _network, limits: _limits, change, ...context } }) => ({
    value, context: { ...context, change: change && { phase: change.phase, gateway: change.pending.network !== undefined || change.pending.deadline !== undefined } },
  }),
  scenarios: [
    { label: 'a repository', input: { ...input, deadline: 1_000_000 } },
    { label: 'an existing container, before its deadline', input: { ...input, deadline: 8_000_000_000_000, dockerId: 'd0cker' } },
    { label: 'an existing container, past its deadline', input: { ...input, deadline: 1_000_000, dockerId: 'd0cker' } },
    { label: 'a repository with services', input: { ...input, deadline: 1_000_000, services: ['postgres', 'redis'] } },
    { label: 'a warm-pool container taken for a repository', input: { ...input, deadline: 8_000_000_000_000, ...pooled } },
    { label: 'a warm-pool container prepared for this repository', input: { ...input, deadline: 8_000_000_000_000, ...pooled, precloned: input.repoUrl } },
    { label: 'a warm-pool container prepared for another repository', input: { ...input, deadline: 8_000_000_000_000, ...pooled, precloned: 'http://127.0.0.1:9/other.git' } },
    { label: 'an existing container with services, before its deadline', input: { ...input, deadline: 8_000_000_000_000, dockerId: 'd0cker', services: ['postgres'] } },
  ],
  implementations: {
    actors: {
      prepareWorkspace: pendingPromise(), cloneRepository: pendingPromise(), refreshClone: pendingPromise(), clearWorkspace: pendingPromise(), claimPooledContainer: pendingPromise(), startContainer: pendingPromise(), inspectContainer: pendingPromise(),
      restartContainer: pendingPromise(), stopContainer: pendingPromise(), cleanUp: pendingPromise(),
      startServices: pendingPromise(), restartServices: pendingPromise(), stopServices: pendingPromise(), removeServices: pendingPromise(),
      applySettings: pendingPromise(), watchDeadline: silentCallback(), watchContainer: silentCallback(), watchServices: silentCallback(), gateway: silentCallback(),
    },
  },
  events: [
    { type: 'container.progress', label: 'receiving objects', current: 3, total: 10 },
    { type: 'container.deadline.reached' },
    { type: 'container.deadline.extended', deadline: 2_000_000 },
    { type: 'container.deadline.extended', deadline: 8_000_000_000_000 },
    { type: 'container.exited', exitCode: 137, oomKilled: true, reason: 'OOMKilled' },
    { type: 'container.exited', exitCode: 1, oomKilled: false, reason: 'runner crashed' },
    { type: 'service.exited', service: 'postgres', exitCode: 137, oomKilled: true },
    { type: 'service.exited', service: 'redis', exitCode: 1, oomKilled: false },
    { type: 'container.restart' },
    { type: 'container.cleanup' },
    { type: 'container.reconfigure', change: { env: { MODE: 'test' }, network: { isolation: true, allowedDomains: [] }, deadline: 8_000_000_000_000 } },
    { type: 'container.reconfigure', change: { limits: { memoryBytes: 2 ** 30, nanoCpus: 1e9 } } },
    { type: 'xstate.done.actor.reconfigure' },
    { type: 'gateway.rules.applied' },
    { type: 'gateway.opened' },
    { type: 'gateway.failed', reason: 'the socket folder is not writable' },
    { type: 'xstate.done.actor.prepareWorkspace', output: { root: '/w/c1', dir: '/w/c1/workspace', disk: { mechanism: 'watchdog', limitBytes: 1 } } },
    { type: 'xstate.done.actor.cloneRepository' },
    { type: 'xstate.done.actor.cloneIntoPooled' },
    { type: 'xstate.done.actor.refreshPreclone' },
    { type: 'xstate.done.actor.clearWorkspace' },
    { type: 'xstate.done.actor.claimPooledContainer' },
    { type: 'xstate.done.actor.startContainer', output: { dockerId: 'd0cker' } },
    { type: 'xstate.done.actor.createContainer', output: { dockerId: 'd0cker' } },
    { type: 'xstate.done.actor.inspectContainer', output: { running: true } },
    { type: 'xstate.done.actor.inspectContainer', output: { running: false } },
    { type: 'xstate.done.actor.restartContainer' },
    { type: 'xstate.done.actor.stopTimedOut' },
    { type: 'xstate.done.actor.cleanUp' },
    { type: 'xstate.done.actor.startServices', output: { env: { PGHOST: 'postgres' } } },
    { type: 'xstate.done.actor.restartServices', output: { env: { PGHOST: 'postgres' } } },
    { type: 'xstate.done.actor.stopServicesTimedOut' },
    { type: 'xstate.done.actor.removeServices' },
    ...['prepareWorkspace', 'cloneRepository', 'cloneIntoPooled', 'refreshPreclone', 'clearWorkspace', 'claimPooledContainer', 'createContainer', 'startContainer', 'inspectContainer', 'restartContainer',
      'stopTimedOut', 'cleanUp', 'watchDeadline', 'watchDeadlineOpening', 'watchContainer', 'startServices', 'restartServices',
      'stopServicesTimedOut', 'removeServices', 'watchServices', 'reconfigure'].map(failure),
  ],
});
