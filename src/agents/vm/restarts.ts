// Restarts of a container under a running vm-agent task: the attempt waits for the restart to end, then carries on, instead of failing.

export interface ContainerRestarts {
  /** Runs `restart` for `containerId`, marking the container as being restarted meanwhile. */
  during<T>(containerId: string, restart: () => Promise<T>): Promise<T>;
  /** Resolves once no restart of `containerId` is under way (at once when none is). */
  settled(containerId: string): Promise<void>;
  /** How many restarts of `containerId` have begun: an attempt compares it before and after its runner ends. */
  generation(containerId: string): number;
}

export function createContainerRestarts(): ContainerRestarts {
  const underway = new Map<string, Promise<unknown>>();
  const begun = new Map<string, number>();
  return {
    async during(containerId, restart) {
      begun.set(containerId, (begun.get(containerId) ?? 0) + 1);
      const work = restart();
      underway.set(containerId, work);
      try {
        return await work;
      } finally {
        if (underway.get(containerId) === work) underway.delete(containerId);
      }
    },
    async settled(containerId) {
      await underway.get(containerId)?.catch(() => undefined);
    },
    generation: (containerId) => begun.get(containerId) ?? 0,
  };
}
