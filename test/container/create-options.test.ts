// The sandbox's security posture as the engine is asked for it: containerCreateOptions, a pure function, checked field by field.
import { describe, expect, it } from 'vitest';
import type { SandboxSpec } from '../../src/container/backend.js';
import { containerCreateOptions, localMounts } from '../../src/container/start.js';
import { initEntrypoint } from '../../src/container/init.js';
import { labelKeys } from '../../src/container/labels.js';

const gib = 1024 ** 3;
const now = Date.parse('2026-11-28T08:00:00Z');
const spec: SandboxSpec = {
  id: 'vm-3f2a',
  session: 'session-1',
  installation: { id: 'inst-1', home: '/home/someone/.cadre' },
  repoUrl: 'https://example.test/acme/app.git',
  image: 'cadre-sandbox:1.2.3',
  limits: { memoryBytes: 2 * gib, cpus: 1.5, pids: 256, diskBytes: 10 * gib, timeoutMinutes: 30 },
  workspace: { root: '/w/vm-3f2a', dir: '/w/vm-3f2a/workspace', disk: { mechanism: 'loop-ext4', limitBytes: 10 * gib } },
  env: { MODE: 'test' },
};

describe('containerCreateOptions', () => {
  const create = containerCreateOptions(spec, { binds: [] }, now);
  const host = create.HostConfig!;

  it('gives the sandbox no network, a read-only root, no capabilities and no way to gain privileges', () => {
    expect(host.NetworkMode).toBe('none');
    expect(host.DnsOptions).toBeUndefined();
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd).toBeUndefined();
    expect(host.SecurityOpt).toEqual(['no-new-privileges']);
    expect(host.Privileged).toBeUndefined();
    expect(host.RestartPolicy).toEqual({ Name: 'no' });
  });

  it('runs as the sandbox user in /workspace, PID 1 being the init that holds the deadline', () => {
    expect(create.User).toBe('1000:1000');
    expect(create.WorkingDir).toBe('/workspace');
    expect(create.Hostname).toBe('vm-3f2a');
    expect(create.name).toBe('cadre-vm-3f2a');
    expect(create.Image).toBe('cadre-sandbox:1.2.3');
    expect(create.Entrypoint).toEqual(initEntrypoint({ deadline: now + 30 * 60_000 }));
    expect(create.Cmd).toEqual(['sleep', 'infinity']);
    expect(containerCreateOptions({ ...spec, command: ['node', 'forwarder.mjs'] }, { binds: [] }, now).Cmd).toEqual(['node', 'forwarder.mjs']);
  });

  it('limits memory with no swap beyond it, CPUs, processes, /tmp and the log the engine keeps', () => {
    expect(host.Memory).toBe(2 * gib);
    expect(host.MemorySwap).toBe(2 * gib);
    expect(host.NanoCpus).toBe(1_500_000_000);
    expect(host.PidsLimit).toBe(256);
    expect(host.Tmpfs).toEqual({ '/tmp': 'rw,nosuid,nodev,size=256m' });
    expect(containerCreateOptions({ ...spec, tmpSize: '64m' }, { binds: [] }, now).HostConfig!.Tmpfs).toEqual({ '/tmp': 'rw,nosuid,nodev,size=64m' });
    expect(host.LogConfig).toEqual({ Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } });
  });

  it('mounts only what the backend gives: nothing by default, never the Docker socket', () => {
    expect(host.Binds).toEqual([]);
    expect(host.Mounts).toBeUndefined();
    expect(containerCreateOptions(spec, { binds: ['/r/vm-3f2a:/run/cadre:ro'] }, now).HostConfig!.Binds).toEqual(['/r/vm-3f2a:/run/cadre:ro']);
    expect(() => containerCreateOptions(spec, { binds: ['/var/run/docker.sock:/var/run/docker.sock'] }, now)).toThrow(expect.objectContaining({ code: 'docker-socket-refused' }));
    // The local engine's mounts: the workspace folder first, then its extra binds.
    expect(localMounts({ ...spec, binds: ['/r/vm-3f2a:/run/cadre:ro'] }).binds).toEqual(['/w/vm-3f2a/workspace:/workspace:rw', '/r/vm-3f2a:/run/cadre:ro']);
  });

  it('joins its services\' internal network only when it has one, with a short resolver timeout there', () => {
    const withServices = containerCreateOptions({ ...spec, network: 'cadre-svc-vm-3f2a' }, { binds: [] }, now).HostConfig!;
    expect(withServices.NetworkMode).toBe('cadre-svc-vm-3f2a');
    expect(withServices.DnsOptions).toEqual(['timeout:1', 'attempts:1']);
  });

  it('puts the sandbox\'s folders and the container\'s own variables in its environment, the container\'s winning', () => {
    expect(create.Env).toContain('MODE=test');
    expect(create.Env).toContain('HOME=/workspace/.cadre-tools/home');
    const overridden = containerCreateOptions({ ...spec, env: { HOME: '/elsewhere' } }, { binds: [] }, now).Env!;
    expect(overridden.filter((entry) => entry.startsWith('HOME='))).toEqual(['HOME=/elsewhere']);
  });

  it('labels it for its installation, session, repository, deadline, workspace and rules', () => {
    expect(create.Labels).toEqual({
      [labelKeys.managed]: 'true',
      [labelKeys.container]: 'vm-3f2a',
      [labelKeys.session]: 'session-1',
      [labelKeys.repo]: 'https://example.test/acme/app.git',
      [labelKeys.deadline]: new Date(now + 30 * 60_000).toISOString(),
      [labelKeys.workspace]: '/w/vm-3f2a',
      [labelKeys.disk]: 'loop-ext4',
      [labelKeys.diskLimit]: String(10 * gib),
      [labelKeys.networkIsolation]: 'false',
      [labelKeys.allowedDomains]: '',
      [labelKeys.installation]: 'inst-1',
      [labelKeys.home]: '/home/someone/.cadre',
    });
    const pooled = containerCreateOptions({ ...spec, deadline: now + 60_000, poolOwner: '42:7', networkIsolation: true, allowedDomains: ['a.test', 'b.test'] }, { binds: [] }, now).Labels!;
    expect(pooled[labelKeys.pool]).toBe('42:7');
    expect(pooled[labelKeys.deadline]).toBe(new Date(now + 60_000).toISOString());
    expect(pooled[labelKeys.networkIsolation]).toBe('true');
    expect(pooled[labelKeys.allowedDomains]).toBe('a.test,b.test');
  });

  it('is pure: the same spec gives the same options', () => {
    expect(containerCreateOptions(spec, { binds: [] }, now)).toEqual(create);
  });
});
