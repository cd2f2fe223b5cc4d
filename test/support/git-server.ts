// A real git smart-HTTP server on 127.0.0.1: `git http-backend` (CGI) behind node:http, serving bare repositories from a temp folder.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The URL of repository `name` (`<url>/<name>.git`). */
  repoUrl(name: string): string;
  /** Creates bare repository `name` with one commit holding `files`; returns the commit id. */
  createRepo(name: string, files: Record<string, string | Uint8Array>): Promise<string>;
  /** The folder of bare repository `name` on this machine (to change what it serves, e.g. its HEAD). */
  repoPath(name: string): string;
  close(): Promise<void>;
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' },
  }).trim();
}

function serveCgi(root: string, req: IncomingMessage, res: ServerResponse, remoteUser?: string): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const backend = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      // http-backend accepts pushes (git-receive-pack) only from an authenticated user.
      ...(remoteUser ? { REMOTE_USER: remoteUser } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    },
  });
  req.pipe(backend.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  backend.on('close', () => (headersDone ? res.end() : res.writeHead(500).end('git http-backend failed')));
}

/** Starts the server; with `auth`, every request needs those Basic credentials (only pushes with `pushOnly`, like a public repository). */
export async function startGitServer(options: { auth?: { username: string; password: string; pushOnly?: boolean } } = {}): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'cadre-git-server-'));
  const expected = options.auth && `Basic ${Buffer.from(`${options.auth.username}:${options.auth.password}`).toString('base64')}`;
  const server = createServer((req, res) => {
    const pushing = (req.url ?? '').includes('git-receive-pack');
    if (expected && (pushing || !options.auth?.pushOnly) && req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="cadre-test"' }).end('authentication required');
      return;
    }
    serveCgi(root, req, res, options.auth?.username);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    repoUrl: (name) => `${url}/${name}.git`,
    repoPath: (name) => join(root, `${name}.git`),
    async createRepo(name, files) {
      const work = await mkdtemp(join(tmpdir(), 'cadre-git-work-'));
      try {
        git(['init', '-q', '-b', 'main'], work);
        for (const [path, text] of Object.entries(files)) {
          await mkdir(dirname(join(work, path)), { recursive: true });
          await writeFile(join(work, path), text);
        }
        git(['add', '.'], work);
        git(['commit', '-q', '-m', 'initial commit'], work);
        git(['clone', '-q', '--bare', work, join(root, `${name}.git`)], root);
        return git(['rev-parse', 'HEAD'], work);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
