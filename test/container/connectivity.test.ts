// /test-connectivity against a real git server on 127.0.0.1: success and each failure stage told apart.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnectivity } from '../../src/container/connectivity.js';
import { startGitServer, type GitServer } from '../support/git-server.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('testConnectivity', () => {
  let open: GitServer;
  let locked: GitServer;

  beforeAll(async () => {
    [open, locked] = await Promise.all([startGitServer(), startGitServer({ auth: { username: 'u', password: 'p' } })]);
    await open.createRepo('app', { 'README.md': '# app\n' });
    await locked.createRepo('app', { 'README.md': '# app\n' });
  });
  afterAll(async () => Promise.all([open?.close(), locked?.close()]));

  it('reports a repository that answers, with its refs and default branch', async () => {
    const report = await testConnectivity({ url: open.repoUrl('app') });
    expect(report).toMatchObject({ ok: true, address: '127.0.0.1', headBranch: 'main' });
    expect(report.ok && report.refs).toBeGreaterThan(0);
  });

  const cases: [string, () => string | Promise<string>][] = [
    ['url', () => 'git@host:owner/repo.git'],
    ['dns', () => 'https://no-such-host.invalid/owner/repo.git'],
    ['connection', async () => `http://127.0.0.1:${await closedPort()}/app.git`],
    ['tls', () => open.repoUrl('app').replace('http:', 'https:')],
    ['authentication', () => locked.repoUrl('app')],
    ['repository', () => open.repoUrl('missing')],
  ];
  it.each(cases)('tells a %s failure apart', async (stage, url) => {
    const report = await testConnectivity({ url: await url(), timeoutMs: 3000 });
    expect(report).toMatchObject({ ok: false, stage });
    expect(!report.ok && report.remedy).toBeTruthy();
  });
});
