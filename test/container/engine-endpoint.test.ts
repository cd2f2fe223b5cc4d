// Which engine wins when several are named: DOCKER_HOST > DOCKER_CONTEXT > vm.engine > the docker CLI's current context > the local socket; bad names say what to do.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeEndpoint, resolveEngineEndpoint } from '../../src/container/engine-endpoint.js';
import { sshTarget } from '../../src/container/engine-ssh.js';

let home = '';

async function context(name: string, host: string, tls: boolean): Promise<void> {
  const id = createHash('sha256').update(name).digest('hex');
  await mkdir(join(home, '.docker', 'contexts', 'meta', id), { recursive: true });
  await writeFile(join(home, '.docker', 'contexts', 'meta', id, 'meta.json'), JSON.stringify({ Name: name, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }));
  if (!tls) return;
  await mkdir(join(home, '.docker', 'contexts', 'tls', id, 'docker'), { recursive: true });
  for (const file of ['ca.pem', 'cert.pem', 'key.pem']) await writeFile(join(home, '.docker', 'contexts', 'tls', id, 'docker', file), 'pem');
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'cadre-endpoint-'));
  await context('current', 'tcp://10.0.0.1:2376', true);
  await context('named', 'ssh://deploy@build-host', false);
  await context('configured', 'unix:///srv/docker.sock', false);
  await writeFile(join(home, '.docker', 'config.json'), JSON.stringify({ currentContext: 'current' }));
});

describe('the engine cadre talks to', () => {
  it('takes the first of DOCKER_HOST, DOCKER_CONTEXT, vm.engine, the current context, the local socket', () => {
    const all = { HOME: home, DOCKER_HOST: 'tcp://10.0.0.9:2375', DOCKER_CONTEXT: 'named' };
    expect(resolveEngineEndpoint({ env: all, configured: 'configured' })).toEqual({ source: 'DOCKER_HOST', transport: 'tcp', host: 'tcp://10.0.0.9:2375' });
    expect(resolveEngineEndpoint({ env: { HOME: home, DOCKER_CONTEXT: 'named' }, configured: 'configured' })).toEqual({ source: 'DOCKER_CONTEXT', context: 'named', transport: 'ssh', host: 'ssh://deploy@build-host' });
    expect(resolveEngineEndpoint({ env: { HOME: home }, configured: 'configured' })).toEqual({ source: 'vm.engine', context: 'configured', transport: 'unix', host: 'unix:///srv/docker.sock' });
    expect(resolveEngineEndpoint({ env: { HOME: home }, configured: 'ssh://me@there:2222' })).toEqual({ source: 'vm.engine', transport: 'ssh', host: 'ssh://me@there:2222' });
    const current = resolveEngineEndpoint({ env: { HOME: home } });
    expect(current).toMatchObject({ source: 'docker context', context: 'current', transport: 'tcp+tls', tls: { verify: true, keyPath: expect.stringMatching(/contexts\/tls\/[0-9a-f]{64}\/docker\/key\.pem$/) } });
    expect(describeEndpoint(current)).toBe('tcp://10.0.0.1:2376 over TCP+TLS (from docker context "current", mutual TLS)');
    expect(resolveEngineEndpoint({ env: { HOME: join(home, 'nobody') } })).toEqual({ source: 'default', transport: 'unix', host: 'unix:///var/run/docker.sock' });
  });

  it('DOCKER_TLS_VERIFY turns TLS on, with the files in DOCKER_CERT_PATH (or ~/.docker), named by path', () => {
    const endpoint = resolveEngineEndpoint({ env: { HOME: home, DOCKER_HOST: 'tcp://10.0.0.9:2376', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' } });
    expect(endpoint.tls).toEqual({ caPath: '/certs/ca.pem', certPath: '/certs/cert.pem', keyPath: '/certs/key.pem', verify: true });
    expect(resolveEngineEndpoint({ env: { HOME: home, DOCKER_HOST: 'tcp://h:2376', DOCKER_TLS_VERIFY: '1' } }).tls?.caPath).toBe(join(home, '.docker', 'ca.pem'));
    expect(describeEndpoint(resolveEngineEndpoint({ env: { HOME: home, DOCKER_HOST: 'tcp://h:2375' } }))).toContain('unencrypted');
  });

  it('refuses what it cannot use, saying what and what to do', () => {
    expect(() => resolveEngineEndpoint({ env: { HOME: home, DOCKER_HOST: 'http://h' } })).toThrow(/DOCKER_HOST is "http:\/\/h", which is not an engine address/);
    expect(() => resolveEngineEndpoint({ env: { HOME: home, DOCKER_CONTEXT: 'gone' } })).toThrow(/docker context "gone" \(from DOCKER_CONTEXT\) does not exist/);
    expect(() => resolveEngineEndpoint({ env: { HOME: home }, configured: 'gone' })).toThrow(/\(from vm\.engine\)/);
    // An ssh destination that ssh would read as an option never reaches its command line.
    expect(() => sshTarget('ssh://-oProxyCommand=touch@x')).toThrow(/not an ssh address cadre can use/);
    expect(sshTarget('ssh://deploy@build-host:2222')).toEqual({ destination: 'build-host', args: ['-l', 'deploy', '-p', '2222'] });
  });
});
