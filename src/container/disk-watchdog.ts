// The fallback disk limit: where no size-limited filesystem can be mounted, poll the workspace's size and report when it passes the limit.
import { workspaceUsage, type Workspace } from './workspace.js';

/**
 * Polls the workspace every `intervalMs` and calls `onExceeded` once when it holds more than its limit
 * (the caller stops the container and reports `disk-full`). Returns a function that stops the watch.
 * With the `loop-ext4` mechanism the filesystem itself enforces the limit and this is not needed.
 */
export function watchWorkspaceDisk(options: { workspace: Workspace; onExceeded: (usage: { usedBytes: number; limitBytes: number }) => void; intervalMs?: number }): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    const usage = await workspaceUsage(options.workspace).catch(() => undefined);
    if (stopped) return;
    if (usage && usage.usedBytes > options.workspace.disk.limitBytes) {
      stopped = true;
      options.onExceeded({ usedBytes: usage.usedBytes, limitBytes: options.workspace.disk.limitBytes });
      return;
    }
    timer = setTimeout(check, options.intervalMs ?? 2000);
  };
  void check();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
