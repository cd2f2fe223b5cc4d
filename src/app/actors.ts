// Typed references to the actors of cadre's one system (the root, the session, its tasks, the containers, the warm pool):
// the only place where the system's untyped lookups become machine refs, so a renamed state or event is a compile error.
import type { ActorRef, ActorRefFrom, AnyActorRef, EventFromLogic, Snapshot, SnapshotFrom } from 'xstate';
import type { AuditInbox, cliMachine } from '../../machines/cli.machine.js';
import type { containerMachine } from '../../machines/container.machine.js';
import type { poolMachine } from '../../machines/pool.machine.js';
import type { sessionMachine } from '../../machines/session.machine.js';
import type { taskMachine, TaskOutput } from '../../machines/task.machine.js';

export type RootRef = ActorRefFrom<typeof cliMachine>;
export type SessionRef = ActorRefFrom<typeof sessionMachine>;
export type TaskRef = ActorRefFrom<typeof taskMachine>;
export type ContainerRef = ActorRefFrom<typeof containerMachine>;
export type PoolRef = ActorRefFrom<typeof poolMachine>;
/** The single writer of the audit trail (the composition root provides its logic). */
export type AuditRef = ActorRef<Snapshot<unknown>, AuditInbox>;

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;
export type TaskSnapshot = SnapshotFrom<typeof taskMachine>;
export type ContainerSnapshot = SnapshotFrom<typeof containerMachine>;
export type PoolSnapshot = SnapshotFrom<typeof poolMachine>;

/** What the session accepts: the session machine's own events. */
export type SessionInbox = EventFromLogic<typeof sessionMachine>;

/** What the lookups need of the root actor: its system (the running `Actor<typeof cliMachine>` has it). */
export interface SystemOwner {
  system: { get(systemId: string): AnyActorRef | undefined };
}

/** The system ids the root gives its children (cli.machine.ts). */
export const systemIds = {
  session: 'session',
  pool: 'pool',
  audit: 'audit',
  container: (containerId: string): string => `container:${containerId}`,
} as const;

/** The id of a task under its session (session.machine.ts spawns each as `task:<taskId>`). */
export const taskChildId = (taskId: string): string => `task:${taskId}`;

const active = (actor: AnyActorRef | undefined): AnyActorRef | undefined => (actor?.getSnapshot().status === 'active' ? actor : undefined);

/** The session actor; throws while the root is not running, which is a bug. */
export function sessionOf(root: SystemOwner): SessionRef {
  const session = root.system.get(systemIds.session);
  if (!session) throw new Error('the session actor is not running');
  return session as SessionRef;
}

/** The actor of container `containerId` this cadre holds (active), if any. */
export function containerOf(root: SystemOwner, containerId: string): ContainerRef | undefined {
  return active(root.system.get(systemIds.container(containerId))) as ContainerRef | undefined;
}

/** The warm pool, while it runs. */
export function poolOf(root: SystemOwner): PoolRef | undefined {
  return active(root.system.get(systemIds.pool)) as PoolRef | undefined;
}

/** The audit trail's writer, while the root runs. */
export function auditOf(root: SystemOwner): AuditRef | undefined {
  return root.system.get(systemIds.audit);
}

/** Task `taskId` of the session, while the session holds it (it leaves once it has ended and told the session). */
export function taskOf(session: SessionRef, taskId: string): TaskRef | undefined {
  return session.getSnapshot().children[taskChildId(taskId)];
}

/** What an ended task gives: its output, or for a task stopped with its session (cadre shutting down), which has none, cancelled. */
export function taskOutputOf(output: TaskOutput | undefined): TaskOutput {
  return output ?? { status: 'cancelled', summary: null, attempts: [], error: null, failure: null };
}

/** The session's tasks that are still running, with their ids. */
export function liveTasksOf(session: SessionRef): { taskId: string; task: TaskRef }[] {
  return Object.entries(session.getSnapshot().children).flatMap(([key, task]) =>
    key.startsWith('task:') && task?.getSnapshot().status === 'active' ? [{ taskId: key.slice('task:'.length), task }] : []);
}
