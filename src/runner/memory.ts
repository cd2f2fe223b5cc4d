// The container's memory as the runner sees it from inside: the cgroup's limit and how many processes its OOM killer has killed.
import { readFileSync } from 'node:fs';

/** cgroup v2 files first, then v1; a folder is injectable so tests can point at a copy. */
function readFirst(paths: string[]): string | undefined {
  for (const path of paths) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      // Not this cgroup version (or not Linux): try the next.
    }
  }
  return undefined;
}

/** Processes the kernel has killed for running out of the container's memory so far; null where the cgroup says nothing. */
export function oomKillCount(root = '/sys/fs/cgroup'): number | null {
  const text = readFirst([`${root}/memory.events`, `${root}/memory/memory.oom_control`]);
  const match = text === undefined ? null : /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

/** The container's memory limit in bytes; null when it has none (or the cgroup cannot be read). */
export function memoryLimitBytes(root = '/sys/fs/cgroup'): number | null {
  const text = readFirst([`${root}/memory.max`, `${root}/memory/memory.limit_in_bytes`])?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const bytes = Number(text);
  // cgroup v1 writes "no limit" as a page-rounded 2^63.
  return bytes >= 2 ** 62 ? null : bytes;
}
