// A git smart-HTTP server on 127.0.0.1 for benchmarks: `git http-backend` as CGI behind node:http, serving one folder of bare repositories.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

/** Serves the bare repositories under `root`; resolves with the base URL and a close function. */
export async function serveGit(root) {
  const server = createServer((req, res) => {
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
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    req.pipe(backend.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    backend.stdout.on('data', (chunk) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const [name, ...rest] = line.split(':');
        if (name.toLowerCase() === 'status') status = Number.parseInt(rest.join(':'), 10);
        else res.setHeader(name, rest.join(':').trim());
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    backend.on('close', () => (started ? res.end() : res.writeHead(500).end()));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
