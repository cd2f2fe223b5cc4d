// Typed references to the actors of cadre's one system (the root, the session, its tasks, the containers, the warm pool):
// the only place where the system's untyped lookups become machine refs, so a renamed state or event is a compile error.
import type { ActorRefFrom, AnyActorRef, EventFromLogic, SnapshotFrom } from 'xstate';
import type { cliMachine } from '../../machines/cli.machine.js';
import type { containerMachine } from '../../machines/container.machine.js';
import type { poolMachine } from '../../machines/pool.machine.js';
import type { sessionMachine } from '../../machines/session.machine.js';
import type { taskMachine } from '../../machines/task.machine.js';

export type RootRef = ActorRefFrom<typeof cliMachine>;
export type SessionRef = ActorRefFrom<typeof sessionMachine>;
export type TaskRef = ActorRefFrom<typeof taskMachine>;
export type ContainerRef = ActorRefFrom<typeof containerMachine>;
export type PoolRef = ActorRefFrom<typeof poolMachine>;

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

/** Task `taskId` of the session, while the session holds it (it leaves once it has ended and told the session). */
export function taskOf(session: SessionRef, taskId: string): TaskRef | undefined {
  return session.getSnapshot().children[taskChildId(taskId)];
}

/** The session's tasks that are still running, with their ids. */
export function liveTasksOf(session: SessionRef): { taskId: string; task: TaskRef }[] {
  return Object.entries(session.getSnapshot().children).flatMap(([key, task]) =>
    key.startsWith('task:') && task?.getSnapshot().status === 'active' ? [{ taskId: key.slice('task:'.length), task }] : []);
}

/**
 * The typed lookups over a root actor that is created after its logic is wired: the hosts are built first (the logic needs
 * them) and look actors up only when they run, once `root` answers.
 */
export function systemRefs(root: () => SystemOwner) {
  return {
    session: (): SessionRef => sessionOf(root()),
    container: (containerId: string): ContainerRef | undefined => containerOf(root(), containerId),
    pool: (): PoolRef | undefined => poolOf(root()),
  };
}

export type SystemRefs = ReturnType<typeof systemRefs>;
