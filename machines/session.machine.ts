// The session statechart: mode, agent, transcript, token usage, tasks (one vm-agent task at a time) and containers.
import { assign, enqueueActions, setup } from 'xstate';
import { taskMachine, type AgentName, type TaskParentEvent, type TaskStatus } from './task.machine.js';

export type SessionMode = 'approve' | 'auto';

export interface SessionInput {
  name: string;
  mode?: SessionMode;
  agent?: AgentName;
  /** Tokens the session may spend through the gateway (the spec's 50,000 by default). */
  budgetLimit?: number;
}

export interface TranscriptEntry {
  role: 'user' | 'agent' | 'exec' | 'system';
  text: string;
  /** Epoch milliseconds. */
  at: number;
}

export interface SessionContext {
  name: string;
  mode: SessionMode;
  agent: AgentName;
  transcript: TranscriptEntry[];
  usage: { inputTokens: number; outputTokens: number };
  /** universal-agent's memory across turns (conversation with the model, last plan, /exec output, usage per run): its data, kept here. */
  agentMemory: Record<string, unknown>;
  budget: { limit: number; used: number };
  vmQueue: string[];
  activeVmTask: string | null;
  /** The universal-agent task that holds the prompt, if any. */
  foregroundTask: string | null;
  /** Ids of the tasks that have not finished yet. */
  tasks: string[];
  containers: string[];
  currentContainer: string | null;
  /** The model /model chose for this session (as typed: `name` or `provider:name`); null for the configured one. */
  model: string | null;
}

/** What a saved session brings back into the running one (/resume, --resume, the crash offer). */
export interface SessionRestore {
  name: string;
  mode: SessionMode;
  agent: AgentName;
  transcript: TranscriptEntry[];
  usage: { inputTokens: number; outputTokens: number };
  agentMemory: Record<string, unknown>;
  budgetUsed: number;
  containers: string[];
  currentContainer: string | null;
  model: string | null;
}

export type SessionEvent =
  | { type: 'session.mode.set'; mode: SessionMode }
  /** /model switched the session's model (null: back to the configured one). */
  | { type: 'session.model.set'; model: string | null }
  /** Replaces this session with a saved one; only accepted while no task is live (tasks do not survive their process). */
  | { type: 'session.restored'; saved: SessionRestore }
  | { type: 'session.mode.toggle' }
  | { type: 'session.agent.set'; agent: AgentName }
  | { type: 'session.transcript.add'; entry: TranscriptEntry }
  | { type: 'session.usage.add'; inputTokens: number; outputTokens: number }
  /** universal-agent changed what it remembers: the fields given replace the session's. */
  | { type: 'session.memory.updated'; memory: Record<string, unknown> }
  /** A settled gateway call: what the budget charged, split into input and output, which the session's usage also counts. */
  | { type: 'budget.used'; tokens: number; inputTokens?: number; outputTokens?: number }
  | { type: 'budget.exhausted' }
  | { type: 'session.renamed'; name: string }
  | { type: 'task.submit'; taskId: string; agent: AgentName; text: string; deadline?: number | null; followUp?: boolean; containerId?: string }
  | { type: 'task.cancel'; taskId?: string }
  | { type: 'container.registered'; containerId: string }
  | { type: 'container.removed'; containerId: string }
  | TaskParentEvent;

/** Notifications for the renderer (subscribe with `actor.on(type, …)`). */
export type SessionEmitted =
  | { type: 'task.queued'; taskId: string; position: number }
  | { type: 'task.started'; taskId: string; agent: AgentName }
  | { type: 'task.refused'; taskId: string; reason: string }
  | { type: 'task.updated'; taskId: string; phase: 'retrying'; detail: string }
  | { type: 'task.finished'; taskId: string; status: TaskStatus }
  | { type: 'budget.exhausted'; used: number; limit: number };

const childId = (taskId: string): string => `task:${taskId}`;

export const sessionMachine = setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
    emitted: {} as SessionEmitted,
  },
  actors: { task: taskMachine },
  guards: {
    isNewForegroundTask: ({ context, event }) =>
      event.type === 'task.submit' && event.agent === 'universal-agent' && !context.tasks.includes(event.taskId),
    isNewVmTask: ({ context, event }) =>
      event.type === 'task.submit' && event.agent === 'vm-agent' && !context.tasks.includes(event.taskId),
    isForegroundTask: ({ context, event }) => event.type === 'task.finished' && event.taskId === context.foregroundTask,
    isLiveTask: ({ context, event }) => event.type === 'task.finished' && context.tasks.includes(event.taskId),
    hasCancellableTask: ({ context, event }) => {
      if (event.type !== 'task.cancel') return false;
      const taskId = event.taskId ?? context.foregroundTask ?? context.activeVmTask;
      return taskId !== null && context.tasks.includes(taskId);
    },
    hasActiveVmTask: ({ context }) => context.activeVmTask !== null,
    hasNoLiveTask: ({ context }) => context.tasks.length === 0,
  },
  actions: {
    setMode: assign((_, params: { mode: SessionMode }) => ({ mode: params.mode })),
    toggleMode: assign(({ context }) => ({ mode: context.mode === 'auto' ? 'approve' as const : 'auto' as const })),
    setAgent: assign((_, params: { agent: AgentName }) => ({ agent: params.agent })),
    setModel: assign((_, params: { model: string | null }) => ({ model: params.model })),
    rename: assign((_, params: { name: string }) => ({ name: params.name })),
    restore: assign(({ context }, params: { saved: SessionRestore }) => ({
      ...params.saved,
      budget: { limit: context.budget.limit, used: params.saved.budgetUsed },
      vmQueue: [],
      activeVmTask: null,
      foregroundTask: null,
      tasks: [],
    })),
    addTranscript: assign(({ context }, params: { entry: TranscriptEntry }) => ({ transcript: [...context.transcript, params.entry] })),
    updateMemory: assign(({ context }, params: { memory: Record<string, unknown> }) => ({ agentMemory: { ...context.agentMemory, ...params.memory } })),
    addUsage: assign(({ context }, params: { inputTokens: number; outputTokens: number }) => ({
      usage: { inputTokens: context.usage.inputTokens + params.inputTokens, outputTokens: context.usage.outputTokens + params.outputTokens },
    })),
    registerContainer: assign(({ context }, params: { containerId: string }) => ({
      containers: context.containers.includes(params.containerId) ? context.containers : [...context.containers, params.containerId],
      currentContainer: params.containerId,
    })),
    removeContainer: assign(({ context }, params: { containerId: string }) => {
      const containers = context.containers.filter((id) => id !== params.containerId);
      const currentContainer = context.currentContainer === params.containerId ? (containers.at(-1) ?? null) : context.currentContainer;
      return { containers, currentContainer };
    }),
    /** Spawns a task child; universal-agent tasks become the foreground task. */
    startTask: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'task.submit') return;
      const { taskId, agent, text } = event;
      enqueue.spawnChild('task', {
        id: childId(taskId),
        input: { taskId, agent, text, autoApprove: context.mode === 'auto', deadline: event.deadline ?? null, followUp: event.followUp === true, containerId: event.containerId ?? null },
      });
      if (agent === 'vm-agent') {
        const grant = context.activeVmTask === null;
        enqueue.assign({
          tasks: [...context.tasks, taskId],
          activeVmTask: grant ? taskId : context.activeVmTask,
          vmQueue: grant ? context.vmQueue : [...context.vmQueue, taskId],
        });
        if (grant) {
          enqueue.sendTo(childId(taskId), { type: 'task.slot.granted' });
          enqueue.emit({ type: 'task.started', taskId, agent });
        } else {
          enqueue.emit({ type: 'task.queued', taskId, position: context.vmQueue.length + 1 });
        }
        return;
      }
      enqueue.assign({ tasks: [...context.tasks, taskId], foregroundTask: taskId });
      enqueue.emit({ type: 'task.started', taskId, agent });
    }),
    refuseForegroundTask: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'task.submit') return;
      enqueue.emit({ type: 'task.refused', taskId: event.taskId, reason: 'a universal-agent task is already running; cancel it or wait' });
    }),
    /** Stops and forgets a finished task; when it held the vm-agent slot, grants the slot to the next queued task. */
    finishTask: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'task.finished') return;
      const { taskId, status } = event;
      const tasks = context.tasks.filter((id) => id !== taskId);
      enqueue.stopChild(childId(taskId));
      enqueue.emit({ type: 'task.finished', taskId, status });
      if (context.activeVmTask !== taskId) {
        enqueue.assign({
          tasks,
          vmQueue: context.vmQueue.filter((id) => id !== taskId),
          foregroundTask: context.foregroundTask === taskId ? null : context.foregroundTask,
        });
        return;
      }
      const [next, ...rest] = context.vmQueue;
      enqueue.assign({ tasks, activeVmTask: next ?? null, vmQueue: rest });
      if (next === undefined) return;
      enqueue.sendTo(childId(next), { type: 'task.slot.granted' });
      enqueue.emit({ type: 'task.started', taskId: next, agent: 'vm-agent' });
      rest.forEach((taskId, index) => enqueue.emit({ type: 'task.queued', taskId, position: index + 1 }));
    }),
    /** Cancels the named task (default: the foreground one, else the running vm-agent task). */
    cancelTask: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'task.cancel') return;
      const taskId = event.taskId ?? context.foregroundTask ?? context.activeVmTask;
      if (taskId === null) return;
      if (context.vmQueue.includes(taskId)) enqueue.assign({ vmQueue: context.vmQueue.filter((id) => id !== taskId) });
      enqueue.sendTo(childId(taskId), { type: 'task.cancel' });
    }),
    /** Adds gateway spending to the budget and to usage; crossing the limit ends the running vm-agent task. */
    useBudget: enqueueActions(({ context, enqueue }, params: { tokens: number; inputTokens: number; outputTokens: number }) => {
      const used = context.budget.used + params.tokens;
      const usage = { inputTokens: context.usage.inputTokens + params.inputTokens, outputTokens: context.usage.outputTokens + params.outputTokens };
      enqueue.assign({ budget: { limit: context.budget.limit, used }, usage });
      if (used < context.budget.limit || context.budget.used >= context.budget.limit) return;
      enqueue.emit({ type: 'budget.exhausted', used, limit: context.budget.limit });
      if (context.activeVmTask !== null) enqueue.sendTo(childId(context.activeVmTask), { type: 'budget.exhausted' });
    }),
    exhaustActiveVmTask: enqueueActions(({ context, enqueue }) => {
      if (context.activeVmTask === null) return;
      enqueue.sendTo(childId(context.activeVmTask), { type: 'budget.exhausted' });
    }),
    announceUpdate: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'task.updated') enqueue.emit(event);
    }),
  },
}).createMachine({
  id: 'session',
  description: 'One working session: its mode, current agent, transcript, token usage, tasks and containers.',
  context: ({ input }) => ({
    name: input.name,
    mode: input.mode ?? 'approve',
    agent: input.agent ?? 'universal-agent',
    transcript: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    agentMemory: {},
    budget: { limit: input.budgetLimit ?? 50_000, used: 0 },
    vmQueue: [],
    activeVmTask: null,
    foregroundTask: null,
    tasks: [],
    containers: [],
    currentContainer: null,
    model: null,
  }),
  initial: 'active',
  states: {
    active: {
      description: 'The session accepts commands; tasks run as children.',
      initial: 'idle',
      on: {
        'session.mode.set': { actions: { type: 'setMode', params: ({ event }) => ({ mode: event.mode }) } },
        'session.mode.toggle': { actions: 'toggleMode' },
        'session.agent.set': { actions: { type: 'setAgent', params: ({ event }) => ({ agent: event.agent }) } },
        'session.model.set': { actions: { type: 'setModel', params: ({ event }) => ({ model: event.model }) } },
        'session.renamed': { actions: { type: 'rename', params: ({ event }) => ({ name: event.name }) } },
        'session.transcript.add': { actions: { type: 'addTranscript', params: ({ event }) => ({ entry: event.entry }) } },
        'session.memory.updated': { actions: { type: 'updateMemory', params: ({ event }) => ({ memory: event.memory }) } },
        'session.usage.add': { actions: { type: 'addUsage', params: ({ event }) => ({ inputTokens: event.inputTokens, outputTokens: event.outputTokens }) } },
        'budget.used': { actions: { type: 'useBudget', params: ({ event }) => ({ tokens: event.tokens, inputTokens: event.inputTokens ?? 0, outputTokens: event.outputTokens ?? 0 }) } },
        'budget.exhausted': { guard: 'hasActiveVmTask', actions: 'exhaustActiveVmTask' },
        'task.submit': { guard: 'isNewVmTask', actions: 'startTask' },
        'task.finished': { guard: 'isLiveTask', actions: 'finishTask' },
        'task.updated': { actions: 'announceUpdate' },
        'task.cancel': { guard: 'hasCancellableTask', actions: 'cancelTask' },
        'container.registered': { actions: { type: 'registerContainer', params: ({ event }) => ({ containerId: event.containerId }) } },
        'container.removed': { actions: { type: 'removeContainer', params: ({ event }) => ({ containerId: event.containerId }) } },
      },
      states: {
        idle: {
          description: 'No universal-agent task is running: the prompt is shown.',
          on: {
            'task.submit': { guard: 'isNewForegroundTask', target: 'busy', actions: 'startTask' },
            'session.restored': { guard: 'hasNoLiveTask', actions: { type: 'restore', params: ({ event }) => ({ saved: event.saved }) } },
          },
        },
        busy: {
          description: 'A universal-agent task holds the prompt; vm-agent tasks may still run or queue.',
          on: {
            'task.submit': { guard: 'isNewForegroundTask', actions: 'refuseForegroundTask' },
            'task.finished': { guard: 'isForegroundTask', target: 'idle', actions: 'finishTask' },
          },
        },
      },
    },
  },
});
