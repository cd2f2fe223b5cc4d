// Runs one command in a sandbox container through the engine (dockerode exec), streaming its output and returning its exit code.
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { engineError } from './docker-client.js';
import type { OutputSink } from '../output.js';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const keepChars = 20_000;

/** Runs `cmd` as the container's user in /workspace with `env`; `onEvent` sees the output live, marked with `origin`. Abort kills nothing: commands are short or stopped with the container. */
export async function execInContainer(docker: Docker, dockerId: string, cmd: string[], options: { env?: Record<string, string>; onEvent?: OutputSink; origin?: string }): Promise<ExecResult> {
  let exec: Docker.Exec;
  let stream: NodeJS.ReadWriteStream;
  try {
    exec = await docker.getContainer(dockerId).exec({
      Cmd: cmd, WorkingDir: '/workspace', AttachStdout: true, AttachStderr: true,
      Env: Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`),
    });
    stream = await exec.start({ hijack: true, stdin: false });
  } catch (error) {
    throw engineError(error, `run ${cmd[0]} in the container`);
  }
  const out = { stdout: '', stderr: '' };
  const pipes = { stdout: new PassThrough(), stderr: new PassThrough() };
  for (const name of ['stdout', 'stderr'] as const) {
    pipes[name].on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      out[name] = (out[name] + text).slice(-keepChars);
      options.onEvent?.({ type: 'output.stream', stream: name, chunk: text, origin: options.origin ?? 'container' });
    });
  }
  docker.modem.demuxStream(stream, pipes.stdout, pipes.stderr);
  await new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? -1, ...out };
}
