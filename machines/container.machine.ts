// The container statechart: a vm-agent workspace from creation and clone through running (with its gateway), timeout and cleanup.
import { and, assign, emit, enqueueActions, setup } from 'xstate';
import { containerEffects } from './container-effects.js';
import type { ContainerChange, ContainerWorkspace, ContainerInput, ContainerContext, ContainerEvent, ContainerEmitted, ContainerEffectInput, ContainerOutput, RestartRefusal, GatewayInbox, InspectContainerOutput } from './container-types.js';

export type { ContainerLimits, ContainerNetwork, ContainerWorkspace, ContainerInput, ContainerFailure, ContainerContext, ContainerChange, ContainerEvent, ContainerEmitted, ContainerEffectInput, ContainerOutput, ReconfigureInput, RestartRefusal, StartServicesOutput, StartContainerOutput, GatewayInput, GatewayInbox, InspectContainerOutput } from './container-types.js';


const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const effectInput = ({ context }: { context: ContainerContext }): ContainerEffectInput => ({
  containerId: context.containerId, repoUrl: context.repoUrl, limits: context.limits, env: context.env, network: context.network,
  dockerId: context.dockerId, workspace: context.workspace, deadline: context.deadline, services: context.services, serviceEnv: context.serviceEnv,
});

const gatewayId = 'gateway';
const reconfigureId = 'reconfigure';

/** Whether the change reaches the gateway (its rules or its token's lifetime). */
const reachesGateway = (change: ContainerChange): boolean => change.network !== undefined || change.deadline !== undefined;

const failWith = { target: '#container.failed', actions: { type: 'recordError', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } } as const;

export const containerMachine = setup({
  types: {
    input: {} as ContainerInput,
    context: {} as ContainerContext,
    events: {} as ContainerEvent,
    emitted: {} as ContainerEmitted,
    output: {} as ContainerOutput,
  },
  actors: containerEffects,
  guards: {
    pooled: ({ context }) => context.pooled,
    precloneOfThisRepository: ({ context }) => context.precloned === context.repoUrl,
    hasPreclone: ({ context }) => context.precloned !== null,
    attaching: ({ context }) => context.dockerId !== null,
    hasServices: ({ context }) => context.services.length > 0,
    hasContainer: ({ context }) => context.dockerId !== null,
    deadlinePassed: ({ context }) => context.deadline <= Date.now(),
    deadlineAhead: ({ context }) => context.deadline > Date.now(),
    laterDeadline: (_, params: { deadline: number }) => params.deadline > Date.now(),
    found: (_, params: { output: InspectContainerOutput }) => params.output.running,
    restartAsked: ({ context }) => context.restartAsked,
    reconfiguring: ({ context }) => context.change !== null,
    changeReachesGateway: ({ context }) => context.change !== null && reachesGateway(context.change.pending),
  },
  actions: {
    recordDockerId: assign((_, params: { dockerId: string }) => ({ dockerId: params.dockerId })),
    recordWorkspace: assign((_, params: { workspace: ContainerWorkspace }) => ({ workspace: params.workspace })),
    forgetPreclone: assign({ precloned: null }),
    /** A restart begins: its generation counted, and told (a task in the container waits for it instead of failing). */
    beginRestart: enqueueActions(({ context, enqueue }) => {
      const generation = context.generation + 1;
      enqueue.assign({ generation, restarting: true, restartAsked: false });
      enqueue.emit({ type: 'container.restarting', containerId: context.containerId, generation });
    }),
    takeAskedRestart: assign({ restartAsked: false }),
    /** A restart asked while a timed-out stop is still under way: counted now, begun once the stop is done. */
    askRestart: enqueueActions(({ context, enqueue }) => {
      const generation = context.generation + 1;
      enqueue.assign({ generation, restarting: true, restartAsked: true });
      enqueue.emit({ type: 'container.restarting', containerId: context.containerId, generation });
    }),
    refuseRestart: emit(({ context }, params: { reason: RestartRefusal }) => ({
      type: 'container.restart.refused' as const, containerId: context.containerId, reason: params.reason, deadline: context.deadline,
      detail: params.reason === 'failed' ? context.failure?.reason ?? 'unknown cause'
        : params.reason === 'timed-out' ? `it passed its deadline (${new Date(context.deadline).toISOString()})`
          : 'it is being created, restarted or cleaned up',
    })),
    announceReady: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ restarting: false });
      enqueue.emit({ type: 'container.ready', containerId: context.containerId, generation: context.generation });
    }),
    announceFailure: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ restarting: false, restartAsked: false });
      enqueue.emit({ type: 'container.failed', containerId: context.containerId, reason: context.failure?.reason ?? 'unknown cause', generation: context.generation });
    }),
    announceStopped: emit(({ context }) => ({ type: 'container.stopped' as const, containerId: context.containerId })),
    announceTimedOut: emit(({ context }) => ({ type: 'container.timed-out' as const, containerId: context.containerId, deadline: context.deadline })),
    /** Starts the reconfigure actor on the change (a child of the container, whatever state it is in). */
    startReconfigure: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'container.reconfigure') return;
      enqueue.assign({ change: { pending: event.change, phase: 'applying' } });
      enqueue.spawnChild('applySettings', {
        id: reconfigureId,
        input: { containerId: context.containerId, dockerId: context.dockerId, workspace: context.workspace, change: event.change },
      });
    }),
    refuseReconfigure: emit(({ context }) => ({ type: 'container.reconfigure.failed' as const, containerId: context.containerId, reason: 'another change to it is still being applied' })),
    /** The applied change in the context; a new deadline goes through `container.deadline.extended`, which each state handles its way. */
    recordChange: enqueueActions(({ context, enqueue }) => {
      const change = context.change?.pending;
      if (!change) return;
      enqueue.assign({
        env: change.env ?? context.env,
        network: change.network ?? context.network,
        limits: change.limits ? { ...context.limits, ...change.limits } : context.limits,
      });
      if (change.deadline !== undefined) enqueue.raise({ type: 'container.deadline.extended', deadline: change.deadline });
    }),
    /** The gateway child takes the new rules and deadline; `gateway.rules.applied` ends the change. */
    tellGateway: enqueueActions(({ context, enqueue }) => {
      const change = context.change?.pending;
      if (!change) return;
      enqueue.assign({ change: { pending: change, phase: 'gateway' } });
      enqueue.sendTo(gatewayId, { type: 'gateway.rules', network: change.network ?? context.network, deadline: change.deadline ?? context.deadline } satisfies GatewayInbox);
    }),
    finishReconfigure: enqueueActions(({ context, enqueue }, params: { running: boolean }) => {
      if (!context.change) return;
      enqueue.emit({ type: 'container.reconfigured', containerId: context.containerId, deadline: context.change.pending.deadline ?? context.deadline, running: params.running });
      enqueue.assign({ change: null });
    }),
    /** The running container stops while its gateway takes new rules: the change ends with what was applied. */
    abandonGatewayRules: enqueueActions(({ context, enqueue }) => {
      if (context.change?.phase !== 'gateway') return;
      enqueue.emit({ type: 'container.reconfigured', containerId: context.containerId, deadline: context.change.pending.deadline ?? context.deadline, running: false });
      enqueue.assign({ change: null });
    }),
    failReconfigure: enqueueActions(({ context, event, enqueue }) => {
      const reason = 'error' in event ? describeError(event.error) : 'unknown cause';
      enqueue.emit({ type: 'container.reconfigure.failed', containerId: context.containerId, reason });
      enqueue.assign({ change: null });
    }),
    /** Opens the gateway: this container's child `gateway`, so the inspector and traces show it under the container. */
    openGateway: enqueueActions(({ context, enqueue }) => {
      enqueue.spawnChild('gateway', {
        id: gatewayId,
        input: { containerId: context.containerId, repoUrl: context.repoUrl, deadline: context.deadline, network: context.network },
      });
    }),
    closeGateway: enqueueActions(({ enqueue }) => enqueue.stopChild(gatewayId)),
    recordGatewayFailure: assign((_, params: { reason: string }) => ({ failure: { reason: `its gateway could not be opened: ${params.reason}`, oomKilled: false } })),
    recordExit: assign((_, params: { exitCode: number; oomKilled: boolean; reason: string }) => ({
      failure: {
        reason: params.oomKilled
          ? `the container ran out of memory (OOMKilled, exit code ${params.exitCode})`
          : `the container exited with code ${params.exitCode}: ${params.reason}`,
        oomKilled: params.oomKilled,
      },
    })),
    recordServiceEnv: assign((_, params: { env: Record<string, string> }) => ({ serviceEnv: params.env })),
    recordServiceExit: assign((_, params: { service: string; exitCode: number; oomKilled: boolean }) => ({
      failure: {
        reason: params.oomKilled
          ? `its service ${params.service} ran out of memory (OOMKilled, exit code ${params.exitCode})`
          : `its service ${params.service} exited with code ${params.exitCode}`,
        oomKilled: params.oomKilled,
      },
    })),
    recordError: assign((_, params: { error: unknown }) => ({ failure: { reason: describeError(params.error), oomKilled: false } })),
    extendDeadline: assign((_, params: { deadline: number }) => ({ deadline: params.deadline })),
    announceProgress: emit(({ context }, params: { label: string; current?: number; total?: number }) => ({
      type: 'container.progress' as const, containerId: context.containerId, ...params,
    })),
  },
}).createMachine({
  id: 'container',
  description: 'One isolated vm-agent container and its workspace, from creation to cleanup.',
  context: ({ input }) => ({
    containerId: input.containerId,
    repoUrl: input.repoUrl,
    deadline: input.deadline,
    limits: input.limits,
    env: input.env ?? {},
    network: input.network ?? { isolation: false, allowedDomains: [] },
    dockerId: input.dockerId ?? null,
    workspace: input.workspace ?? null,
    failure: null,
    services: input.services ?? [],
    serviceEnv: {},
    pooled: input.pooled === true,
    precloned: input.pooled === true ? input.precloned ?? null : null,
    generation: 0,
    restarting: false,
    restartAsked: false,
    change: null,
  }),
  output: ({ context }) => ({ containerId: context.containerId }),
  initial: 'opening',
  on: {
    // A restart is refused where no state below takes it: while the container is being created, restarted or cleaned up.
    'container.restart': { actions: { type: 'refuseRestart', params: { reason: 'busy' } } },
    'container.reconfigure': [{ guard: 'reconfiguring', actions: 'refuseReconfigure' }, { actions: 'startReconfigure' }],
    'xstate.done.actor.reconfigure': { actions: ['recordChange', { type: 'finishReconfigure', params: { running: false } }] },
    'xstate.error.actor.reconfigure': { actions: 'failReconfigure' },
    'gateway.rules.applied': { actions: { type: 'finishReconfigure', params: { running: true } } },
  },
  states: {
    opening: {
      description: 'A new container is created, or taken from the warm pool; one that already exists (an earlier cadre process made it) is attached to.',
      always: [{ guard: 'pooled', target: 'taking' }, { guard: 'attaching', target: 'attaching' }, { target: 'creating' }],
    },
    taking: {
      description: 'A warm-pool container (started, locked down, nothing of anyone\'s run in it) becomes this one: its pre-clone of the repository is brought up to date, or the repository is cloned into it, then it is claimed.',
      initial: 'choosing',
      states: {
        choosing: {
          description: 'What the workspace holds decides: a pre-clone of this repository is refreshed, one of another is removed first, an empty one is cloned into.',
          always: [{ guard: 'precloneOfThisRepository', target: 'refreshing' }, { guard: 'hasPreclone', target: 'clearing' }, { target: 'cloning' }],
        },
        refreshing: {
          description: 'Fetching into the pre-clone from the same URL and setting it to what a fresh clone gives now; anything amiss removes it and clones afresh.',
          invoke: {
            id: 'refreshPreclone',
            src: 'refreshClone',
            input: effectInput,
            onDone: 'claiming',
            onError: {
              target: 'clearing',
              actions: { type: 'announceProgress', params: ({ event }) => ({ label: `The prepared clone could not be brought up to date (${describeError(event.error)}): cloning afresh` }) },
            },
          },
        },
        clearing: {
          description: 'Removing the pre-clone from the workspace (another repository\'s, or one that could not be refreshed): never handed out stale or half-updated.',
          invoke: { id: 'clearWorkspace', src: 'clearWorkspace', input: effectInput, onDone: { target: 'cloning', actions: 'forgetPreclone' }, onError: failWith },
        },
        cloning: {
          description: 'Cloning the repository into the pool container\'s workspace, on the host (nothing runs in the container but cadre\'s forwarder).',
          invoke: { id: 'cloneIntoPooled', src: 'cloneRepository', input: effectInput, onDone: 'claiming', onError: failWith },
        },
        claiming: {
          description: 'Preparing its folder and recording its repository, session and deadline beside the workspace: from here it is the session\'s.',
          invoke: { id: 'claimPooledContainer', src: 'claimPooledContainer', input: effectInput, onDone: '#container.running', onError: failWith },
        },
      },
      on: {
        'container.progress': {
          actions: { type: 'announceProgress', params: ({ event }) => ({ label: event.label, current: event.current, total: event.total }) },
        },
      },
    },
    attaching: {
      description: 'Finding the existing container: running, stopped, or past its deadline.',
      invoke: {
        id: 'inspectContainer',
        src: 'inspectContainer',
        input: effectInput,
        onDone: [
          { guard: 'deadlinePassed', target: 'timed-out' },
          { guard: { type: 'found', params: ({ event }) => ({ output: event.output }) }, target: 'running' },
          { target: 'stopped' },
        ],
        onError: failWith,
      },
    },
    creating: {
      description: 'Preparing the host workspace folder with its disk limit.',
      invoke: {
        id: 'prepareWorkspace',
        src: 'prepareWorkspace',
        input: effectInput,
        // Services first: the container is created with their connection variables.
        onDone: [
          { guard: 'hasServices', target: 'starting-services', actions: { type: 'recordWorkspace', params: ({ event }) => ({ workspace: event.output }) } },
          { target: 'cloning', actions: { type: 'recordWorkspace', params: ({ event }) => ({ workspace: event.output }) } },
        ],
        onError: failWith,
      },
    },
    cloning: {
      description: 'Cloning the repository into the workspace while the locked-down container is created and started beside it (nothing runs in it before its gateway opens).',
      type: 'parallel',
      states: {
        repository: {
          description: 'The clone into the workspace, on the host.',
          initial: 'fetching',
          states: {
            fetching: {
              description: 'Fetching and checking out the repository.',
              invoke: { id: 'cloneRepository', src: 'cloneRepository', input: effectInput, onDone: 'cloned', onError: failWith },
            },
            cloned: { type: 'final', description: 'The workspace holds the checkout.' },
          },
        },
        container: {
          description: 'The container, with the workspace mounted.',
          initial: 'creating',
          states: {
            creating: {
              description: 'Creating and starting the locked-down container.',
              invoke: {
                id: 'createContainer',
                src: 'startContainer',
                input: effectInput,
                onDone: { target: 'started', actions: { type: 'recordDockerId', params: ({ event }) => ({ dockerId: event.output.dockerId }) } },
                onError: failWith,
              },
            },
            started: { type: 'final', description: 'The container runs its idle main process.' },
          },
        },
      },
      onDone: 'running',
      on: {
        'container.progress': {
          actions: { type: 'announceProgress', params: ({ event }) => ({ label: event.label, current: event.current, total: event.total }) },
        },
      },
    },
    'starting-services': {
      description: 'Starting its service containers on their internal network and waiting until each answers its health check.',
      invoke: {
        id: 'startServices',
        src: 'startServices',
        input: effectInput,
        // A new container is created (and cloned into) next; a stopped one is started again.
        onDone: [
          { guard: 'hasContainer', target: 'starting', actions: { type: 'recordServiceEnv', params: ({ event }) => ({ env: event.output.env }) } },
          { target: 'cloning', actions: { type: 'recordServiceEnv', params: ({ event }) => ({ env: event.output.env }) } },
        ],
        onError: failWith,
      },
    },
    starting: {
      description: 'Starting the stopped container again.',
      invoke: {
        id: 'startContainer',
        src: 'startContainer',
        input: effectInput,
        onDone: { target: 'running', actions: { type: 'recordDockerId', params: ({ event }) => ({ dockerId: event.output.dockerId }) } },
        onError: failWith,
      },
    },
    running: {
      description: 'The container runs, with its gateway open, until its deadline, an exit, or a restart or cleanup request.',
      entry: 'openGateway',
      exit: ['closeGateway', 'abandonGatewayRules'],
      invoke: [
        { id: 'watchContainer', src: 'watchContainer', input: effectInput, onError: failWith },
        { id: 'watchServices', src: 'watchServices', input: effectInput, onError: failWith },
      ],
      initial: 'opening-gateway',
      states: {
        'opening-gateway': {
          description: 'The gateway child is opening the container\'s way out (model calls, egress); nothing runs in it before. The deadline holds meanwhile.',
          invoke: { id: 'watchDeadlineOpening', src: 'watchDeadline', input: ({ context }) => ({ deadline: context.deadline }), onError: failWith },
          on: {
            'gateway.opened': { target: 'watching', actions: 'announceReady' },
            'container.deadline.extended': {
              target: 'opening-gateway',
              reenter: true,
              actions: { type: 'extendDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
            },
          },
        },
        watching: {
          description: 'Open for work; waiting for the deadline (watched again from the new one when it moves).',
          invoke: { id: 'watchDeadline', src: 'watchDeadline', input: ({ context }) => ({ deadline: context.deadline }), onError: failWith },
          on: {
            // Only the watcher starts again: re-entering `running` would close the gateway and revoke the running task's credential.
            'container.deadline.extended': {
              target: 'watching',
              reenter: true,
              actions: { type: 'extendDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
            },
          },
        },
      },
      on: {
        'container.deadline.reached': 'timed-out',
        'gateway.failed': { target: 'failed', actions: { type: 'recordGatewayFailure', params: ({ event }) => ({ reason: event.reason }) } },
        'container.exited': {
          target: 'failed',
          actions: { type: 'recordExit', params: ({ event }) => ({ exitCode: event.exitCode, oomKilled: event.oomKilled, reason: event.reason }) },
        },
        'service.exited': {
          target: 'failed',
          actions: { type: 'recordServiceExit', params: ({ event }) => ({ service: event.service, exitCode: event.exitCode, oomKilled: event.oomKilled }) },
        },
        'container.restart': [{ guard: 'hasServices', target: 'restarting-services', actions: 'beginRestart' }, { target: 'restarting', actions: 'beginRestart' }],
        'container.cleanup': 'cleaning-up',
        // The gateway child takes new rules in place: leaving `running` would close it and revoke the running task's credential.
        'xstate.done.actor.reconfigure': [
          { guard: 'changeReachesGateway', actions: ['recordChange', 'tellGateway'] },
          { actions: ['recordChange', { type: 'finishReconfigure', params: { running: true } }] },
        ],
      },
    },
    'restarting-services': {
      description: 'Restarting its service containers (data kept) and waiting until each is healthy again, before the container.',
      invoke: {
        id: 'restartServices',
        src: 'restartServices',
        input: effectInput,
        onDone: { target: 'restarting', actions: { type: 'recordServiceEnv', params: ({ event }) => ({ env: event.output.env }) } },
        onError: failWith,
      },
    },
    restarting: {
      description: 'Restarting the container in place.',
      invoke: { id: 'restartContainer', src: 'restartContainer', input: effectInput, onDone: 'running', onError: failWith },
    },
    stopped: {
      description: 'Found stopped when attached (an earlier cadre process or Docker stopped it): it can be started again or cleaned up.',
      entry: 'announceStopped',
      // A restart asked while it was stopping for its deadline (given more time since) begins now.
      always: [
        { guard: and(['restartAsked', 'hasServices']), target: 'starting-services', actions: 'takeAskedRestart' },
        { guard: 'restartAsked', target: 'starting', actions: 'takeAskedRestart' },
      ],
      on: {
        'container.restart': [{ guard: 'hasServices', target: 'starting-services', actions: 'beginRestart' }, { target: 'starting', actions: 'beginRestart' }],
        'container.cleanup': 'cleaning-up',
        'container.deadline.extended': { actions: { type: 'extendDeadline', params: ({ event }) => ({ deadline: event.deadline }) } },
      },
    },
    'timed-out': {
      description: 'The deadline passed: the container is stopped; a later deadline (/vm-config --timeout) lets it start again, or it waits for cleanup.',
      entry: 'announceTimedOut',
      initial: 'stopping',
      on: {
        'container.cleanup': 'cleaning-up',
        'container.restart': { actions: { type: 'refuseRestart', params: { reason: 'timed-out' } } },
      },
      states: {
        stopping: {
          description:
            'Stopping the container and its services. A later deadline is kept but waits for the stop to finish: a start before then would be undone by the stop still under way.',
          type: 'parallel',
          states: {
            container: {
              description: 'The sandbox container itself.',
              initial: 'stopping',
              states: {
                stopping: { description: 'Docker is stopping it.', invoke: { id: 'stopTimedOut', src: 'stopContainer', input: effectInput, onDone: 'stopped', onError: failWith } },
                stopped: { description: 'Stopped.', type: 'final' },
              },
            },
            services: {
              description: 'Its service containers (none: stopped at once).',
              initial: 'stopping',
              states: {
                stopping: { description: 'Docker is stopping them.', invoke: { id: 'stopServicesTimedOut', src: 'stopServices', input: effectInput, onDone: 'stopped', onError: failWith } },
                stopped: { description: 'Stopped.', type: 'final' },
              },
            },
          },
          onDone: 'stopped',
          on: {
            // Given more time while the stop is under way: the restart waits for the stop, then starts it.
            'container.restart': { guard: 'deadlineAhead', actions: 'askRestart' },
            'container.deadline.extended': {
              guard: { type: 'laterDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
              actions: { type: 'extendDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
            },
          },
        },
        stopped: {
          description: 'Stopped; with a deadline moved while it stopped, it is at once a stopped container that can start again.',
          always: { guard: 'deadlineAhead', target: '#container.stopped' },
          on: {
            'container.deadline.extended': {
              guard: { type: 'laterDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
              target: '#container.stopped',
              actions: { type: 'extendDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
            },
          },
        },
      },
    },
    failed: {
      description: 'Something went wrong (context.failure says what, including OOMKilled); it waits for cleanup.',
      entry: 'announceFailure',
      on: {
        'container.cleanup': 'cleaning-up',
        'container.restart': { actions: { type: 'refuseRestart', params: { reason: 'failed' } } },
      },
    },
    'cleaning-up': {
      description: "Revoking the session token and removing the container and its workspace.",
      invoke: { id: 'cleanUp', src: 'cleanUp', input: effectInput, onDone: [{ guard: 'hasServices', target: 'removing-services' }, { target: 'cleaned-up' }], onError: failWith },
    },
    'removing-services': {
      description: 'Removing its service containers with their network and data.',
      invoke: { id: 'removeServices', src: 'removeServices', input: effectInput, onDone: 'cleaned-up', onError: failWith },
    },
    'cleaned-up': { type: 'final', description: 'Nothing of the container remains.' },
  },
});
