// The runner's credential: one JSON line on its stdin, taken only once no other process in the container can read the runner.
import { statSync } from 'node:fs';
import { z } from 'zod';
import { CadreError } from '../errors.js';

const credentialLine = z.record(z.string().regex(/^[A-Z][A-Z0-9_]*_API_KEY$/), z.string().min(1));

/**
 * Throws `runner.credential-exposed` unless this process is non-dumpable. The kernel gives the /proc files of a
 * non-dumpable process to root, and closes its environ, memory, descriptors and ptrace to every process without
 * CAP_SYS_PTRACE (none in the container has it); a dumpable one's files stay its own uid's, open to the commands it runs.
 */
export function assertUnreadable(): void {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0 && statSync('/proc/self/environ').uid === 0) return;
  throw new CadreError('runner.credential-exposed', `The commands the runner starts could read its memory (${uid === 0 ? 'it runs as root' : 'its Node is readable, so the kernel leaves it dumpable'}), so it does not take the session credential.`, {
    remedy: "Use cadre's sandbox image (remove vm.image from the config, then /vm-create), whose runner Node is execute-only; a custom image needs the same: a copy of node at /usr/local/libexec/cadre/node, mode 0111, owned by root.",
  });
}

/**
 * Splits what the host wrote on stdin: the first line, a JSON object of credential variables (`ANTHROPIC_API_KEY`…), and
 * the rest (the task, when no --task was given). Throws `runner.usage` for a first line that is not such an object.
 */
export function splitCredentials(stdin: string): { credentials: Record<string, string>; rest: string } {
  const end = stdin.indexOf('\n');
  const first = end < 0 ? stdin : stdin.slice(0, end);
  let parsed: unknown;
  try {
    parsed = JSON.parse(first);
  } catch {
    parsed = undefined;
  }
  const result = credentialLine.safeParse(parsed);
  if (!result.success) {
    throw new CadreError('runner.usage', '--credentials-on-stdin: the first line of stdin is not a JSON object of *_API_KEY variables.', {
      remedy: 'cadre writes that line itself; start the runner through vm-agent.',
    });
  }
  return { credentials: result.data, rest: end < 0 ? '' : stdin.slice(end + 1) };
}
