// Runs a command in a running container through dockerode and collects its exit code and output.
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

/** Execs `cmd` (argv form) in `container` and waits for it to finish. */
export async function execIn(docker: Docker, container: Docker.Container, cmd: string[], options: { user?: string } = {}): Promise<ExecResult> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, ...(options.user ? { User: options.user } : {}) });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out = new PassThrough();
  const err = new PassThrough();
  const stdout = collect(out);
  const stderr = collect(err);
  docker.modem.demuxStream(stream, out, err);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
  const { ExitCode } = await exec.inspect();
  return { exitCode: ExitCode ?? -1, stdout: stdout(), stderr: stderr() };
}
