// The reference MCP servers from npm (devDependencies) for tests: filesystem and everything over stdio, everything over streamable HTTP on 127.0.0.1.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** mcp.servers config entry starting the reference filesystem server on the given folders. */
export const filesystemServer = (...folders: string[]) => ({
  command: process.execPath, args: [join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist/index.js'), ...folders],
});

/** mcp.servers config entry starting the reference everything server over stdio. */
export const everythingServer = () => ({
  command: process.execPath, args: [join(packageDir('@modelcontextprotocol/server-everything'), 'dist/index.js'), 'stdio'],
});

export interface HttpMcpServer {
  url: string;
  close(): Promise<void>;
}

/** The everything server over streamable HTTP in its own process, behind `Bearer <token>` when a token is given. */
export function startEverythingHttp(options: { token?: string } = {}): Promise<HttpMcpServer> {
  const script = fileURLToPath(new URL('./mcp-http-server.mjs', import.meta.url));
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...(options.token ? { MCP_TEST_TOKEN: options.token } : {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the MCP HTTP server exited (${code}): ${err}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (!out.includes('\n') || !line) return;
      resolve({
        url: line.trim(),
        close: async () => {
          if (child.exitCode === null) child.kill();
          await exited;
        },
      });
    });
  });
}
