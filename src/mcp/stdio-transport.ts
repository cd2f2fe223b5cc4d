// The stdio transport of an MCP server, started in a process group of its own: Ctrl-C at the terminal interrupts cadre's task,
// never the server (the SDK's StdioClientTransport spawns it in cadre's group, where the terminal's SIGINT reaches it too).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Told each piece of the server's stderr (its log), which never reaches the terminal. */
  onStderr?: (text: string) => void;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class GroupedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly server: StdioServer) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args, { env: this.server.env, cwd: this.server.cwd, stdio: 'pipe', detached: true, shell: false });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message);
        } catch (error) {
          this.onerror?.(error as Error);
        }
      });
      child.stderr.on('data', (chunk: Buffer) => this.server.onStderr?.(chunk.toString()));
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) throw new Error('the server is not running');
    await new Promise<void>((resolve, reject) => stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())));
  }

  /** Ends its input, then asks its whole group to stop, then stops it. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.stdin.end();
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      await Promise.race([closed, wait(2000)]);
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        child.kill(signal);
      }
    }
  }
}
