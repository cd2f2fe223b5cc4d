// ssh:// engines the way the docker CLI reaches them: each connection is `ssh … docker system dial-stdio` through the person's ssh (agent, keys, known_hosts, ~/.ssh/config).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Agent } from 'node:http';
import { Duplex } from 'node:stream';

/** A failed ssh connection, with what ssh said: it rejects the request instead of crashing the process (dockerode's own ssh transport throws from an event handler). */
export class SshEngineError extends Error {
  readonly code = 'ESSHENGINE';
  constructor(
    message: string,
    readonly destination: string,
  ) {
    super(message);
  }
}

export interface SshTarget {
  destination: string;
  args: string[];
}

/** `ssh://user@host:port` as ssh arguments; anything that could be read as an option is refused. */
export function sshTarget(host: string): SshTarget {
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw new SshEngineError(`"${host}" is not an ssh:// address`, host);
  }
  const user = decodeURIComponent(url.username);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!/^[A-Za-z0-9._:-]+$/.test(hostname) || hostname.startsWith('-') || (user && !/^[A-Za-z0-9._-]+$/.test(user)) || (url.pathname !== '' && url.pathname !== '/')) {
    throw new SshEngineError(`"${host}" is not an ssh address cadre can use: expected ssh://user@host[:port]`, host);
  }
  const args = [...(user ? ['-l', user] : []), ...(url.port ? ['-p', url.port] : [])];
  return { destination: hostname, args };
}

/** The ssh program and its leading options: CADRE_SSH_COMMAND (split on spaces, like GIT_SSH_COMMAND without a shell) or `ssh`. */
function sshCommand(env: Record<string, string | undefined>): string[] {
  const words = (env.CADRE_SSH_COMMAND ?? '').split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : ['ssh'];
}

/** The last lines ssh wrote on stderr: its own explanation (host key, refused key, unreachable host, no docker there). */
const said = (stderr: string): string => stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400) || 'nothing';

/** One engine connection: ssh's stdout and stdin as a socket for the HTTP client, with the socket methods it calls. */
class DialStdio extends Duplex {
  private stderr = '';
  private answered = false;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(target: SshTarget, env: Record<string, string | undefined>) {
    super();
    const [program, ...options] = sshCommand(env);
    this.child = spawn(program!, [...options, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30', '-T', ...target.args, '--', target.destination, 'docker', 'system', 'dial-stdio'], {
      env: env as NodeJS.ProcessEnv,
    });
    const { child } = this;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.answered = true;
      if (!this.push(chunk)) child.stdout.pause();
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error: NodeJS.ErrnoException) => {
      this.destroy(new SshEngineError(error.code === 'ENOENT' ? `cannot run ${program}: it is not installed or not on PATH` : `cannot run ${program}: ${error.message}`, target.destination));
    });
    // The end of the stream waits for ssh's exit status: a refusal becomes ssh's own words, not "socket hang up".
    child.on('close', (code, signal) => {
      if (this.answered || code === 0) this.push(null);
      else this.destroy(new SshEngineError(`ssh to ${target.destination} ended (${signal ?? `exit code ${code}`}) before the engine answered; ssh said: ${said(this.stderr)}`, target.destination));
    });
  }

  override _read(): void {
    this.child.stdout.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.child.stdin.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.child.stdin.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
    callback(error);
  }

  setTimeout(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  /** An idle connection kept for the next request does not hold the process open. */
  unref(): this {
    this.child.unref();
    for (const pipe of [this.child.stdout, this.child.stdin, this.child.stderr] as unknown as { unref(): void }[]) pipe.unref();
    return this;
  }

  ref(): this {
    this.child.ref();
    for (const pipe of [this.child.stdout, this.child.stdin, this.child.stderr] as unknown as { ref(): void }[]) pipe.ref();
    return this;
  }
}

/** An HTTP agent whose connections are ssh dial-stdio sessions; an idle one is kept for the next request without holding the process open. */
export function sshEngineAgent(host: string, env: Record<string, string | undefined> = process.env): Agent {
  const target = sshTarget(host);
  const agent = new Agent({ keepAlive: true, maxSockets: 8, maxFreeSockets: 1 });
  Object.assign(agent, { createConnection: () => new DialStdio(target, env) });
  return agent;
}
