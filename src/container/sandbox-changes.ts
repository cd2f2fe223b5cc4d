// Whether a workspace cadre cannot read on its side (a volume on a remote engine) holds work that exists nowhere else: git's own
// answer, asked inside the running sandbox through the engine's exec. The sandbox could lie, but only about its own files,
// which it can delete anyway; its answer is two numbers, parsed strictly, and anything else is `unknown` (kept as if changed).
import { workspaceChanges, type WorkspaceChanges } from '../git/workspace-changes.js';
import type { SandboxBackend, SandboxHandle } from './backend.js';
import type { ContainerRecord } from './records.js';

/**
 * Counts what differs from HEAD (untracked files included, ignored ones not, as the host's reading does) and whether HEAD is in
 * no remote-tracking branch. The status goes to a file first: a failing git in a pipe would count as a clean workspace.
 */
const script = `set -e
git rev-parse --verify -q HEAD >/dev/null
listing=$(mktemp)
git -c core.fsmonitor=false status --porcelain=v1 -z --untracked-files=all --no-renames >"$listing"
uncommitted=$(tr -cd '\\000' <"$listing" | wc -c)
rm -f "$listing"
unpushed=$(git rev-list -n 1 HEAD --not --remotes)
echo "cadre-changes $uncommitted \${unpushed:+1}"`;

const unknown = (reason: string): WorkspaceChanges => ({ state: 'unknown', uncommitted: 0, unpushedCommits: false, reason });

/** Reads the changes of the workspace of the running sandbox `handle`; unknown when it cannot, or takes longer than `timeoutMs`. */
export async function sandboxChanges(backend: Pick<SandboxBackend, 'exec'>, handle: SandboxHandle, options: { timeoutMs?: number } = {}): Promise<WorkspaceChanges> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<WorkspaceChanges>((resolve) => {
    timer = setTimeout(() => resolve(unknown('reading it in the sandbox took too long')), options.timeoutMs ?? 10_000);
  });
  const read = backend.exec(handle, ['sh', '-c', script]).then((result): WorkspaceChanges => {
    const answer = /^cadre-changes (\d{1,9}) ?(1?)$/m.exec(result.stdout);
    if (result.exitCode !== 0 || !answer) return unknown(`git in the sandbox did not answer (exit ${result.exitCode}${result.stderr.trim() ? `: ${result.stderr.trim().slice(0, 120)}` : ''})`);
    const uncommitted = Number(answer[1]);
    const unpushedCommits = answer[2] === '1';
    return { state: uncommitted > 0 || unpushedCommits ? 'changed' : 'clean', uncommitted, unpushedCommits };
  }, (error: unknown) => unknown(error instanceof Error ? error.message : String(error)));
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The changes of `record`'s workspace, read where it is: on cadre's side when the backend shares its files, else inside the
 * sandbox while it runs (a stopped one's are unknown: /vm-restart starts it).
 */
export async function changesOf(backend: Pick<SandboxBackend, 'caps' | 'exec'>, record: Pick<ContainerRecord, 'id' | 'dockerId' | 'workspace' | 'state'>, options: { timeoutMs?: number } = {}): Promise<WorkspaceChanges> {
  if (backend.caps.hostFilesystem) return workspaceChanges(record.workspace.dir, options);
  if (!record.state.running) return unknown(`${record.id} is stopped and its workspace is on the engine; /vm-restart ${record.id} lets cadre read it`);
  return sandboxChanges(backend, { id: record.id, engineId: record.dockerId }, options);
}
