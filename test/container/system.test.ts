// /system-status and /system-resources against the real engine, and against an engine that is not there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { systemResources, systemStatus } from '../../src/container/system.js';
import { describeDocker, testDocker } from '../support/docker.js';

describeDocker('the container runtime checks', () => {
  const docker = testDocker();

  it('reports the engine: versions, storage driver, cgroup version, endpoint', async () => {
    const status = await systemStatus({ docker });
    expect(status).toMatchObject({ reachable: true, engineVersion: expect.stringMatching(/^\d+\./), apiVersion: expect.stringMatching(/^1\.\d+/), cgroupVersion: expect.stringMatching(/^[12]$/) });
    expect(status.reachable && status.storageDriver).toBeTruthy();
  });

  it('reports host CPU, memory, free disk where workspaces live, and what cadre containers hold', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cadre-home-'));
    try {
      const resources = await systemResources({ docker, workspacesDir: join(home, 'not-yet', 'workspaces') });
      expect(resources.cpus).toBeGreaterThan(0);
      expect(resources.memory.totalBytes).toBeGreaterThan(resources.memory.freeBytes);
      expect(resources.disk).toMatchObject({ path: home, freeBytes: expect.any(Number) });
      expect(resources.held.memoryBytes).toBeGreaterThanOrEqual(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('the container runtime checks without an engine', () => {
  it('says the daemon does not answer, names the socket, and what to do', async () => {
    const status = await systemStatus({ docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) });
    expect(status).toMatchObject({ reachable: false, error: expect.stringMatching(/does not answer/), remedy: expect.stringMatching(/start the Docker engine/) });
  });
});
