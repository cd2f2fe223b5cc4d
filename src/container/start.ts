// Creates and starts a sandbox container with the isolation of ARCHITECTURE.md §3: no network, read-only root, no capabilities, limits, bounded logs, a deadline of its own.
import type Docker from 'dockerode';
import { CadreError, isCadreError } from '../errors.js';
import type { SandboxSpec } from './backend.js';
import { cadreFolderEnv } from './cadre-folder.js';
import { engineError, engineStatus } from './docker-client.js';
import { initEntrypoint } from './init.js';
import { labelKeys } from './labels.js';
import { engineResources, machineLimits } from './settings.js';
import { sandboxUser } from './workspace.js';

/** The local engine's spec: a sandbox spec with the binds only the local backend adds (runner bundle, gateway socket, CA). */
export interface ContainerSpec extends SandboxSpec {
  /** Extra bind mounts (`host:container:ro`), e.g. the runner bundle and the gateway socket. Never the Docker socket. */
  binds?: string[];
}

/** What the backend mounts into the sandbox, as the engine's `Binds` entries (the workspace among them). */
export interface SandboxMounts {
  binds: string[];
  /** Paths in the sandbox given an anonymous volume of its own (removed with it), e.g. the init's folder on a remote engine. */
  volumes?: string[];
}

/** The engine keeps at most this much of the container's own output (a disk-limit bypass otherwise). */
export const containerLogLimit = { maxSize: '1m', maxFiles: 2 } as const;

/**
 * The engine's create options for `spec`: the whole security posture in one place, a pure function. What is mounted comes
 * only from `mounts`, which a backend gives (none by default).
 */
export function containerCreateOptions(spec: SandboxSpec, mounts: SandboxMounts = { binds: [] }, now = Date.now()): Docker.ContainerCreateOptions {
  if (mounts.binds.some((bind) => /docker\.sock/.test(bind))) {
    throw new CadreError('docker-socket-refused', 'The Docker socket is never mounted into a sandbox container', { remedy: 'remove it from the binds' });
  }
  const deadline = spec.deadline ?? now + spec.limits.timeoutMinutes * 60_000;
  return {
    name: `cadre-${spec.id}`,
    Image: spec.image,
    // PID 1 is the init: the deadline holds without cadre, and the agent cannot reach PID 1's output or memory.
    Entrypoint: initEntrypoint({ deadline, graceSeconds: spec.deadlineGraceSeconds }),
    Cmd: spec.command ?? ['sleep', 'infinity'],
    Hostname: spec.id,
    User: `${sandboxUser.uid}:${sandboxUser.gid}`,
    WorkingDir: '/workspace',
    // Caches, stores and temp space on the workspace's quota (see cadreFolderEnv); the container's own variables win.
    Env: Object.entries({ ...cadreFolderEnv, ...spec.env }).map(([name, value]) => `${name}=${value}`),
    // NetworkMode none (or the services' network) alone: the loopback interface stays and the engine writes /etc/hosts, so localhost resolves
    // (NetworkDisabled would leave /etc/hosts empty and test servers on localhost unreachable).
    Labels: {
      [labelKeys.managed]: 'true',
      [labelKeys.container]: spec.id,
      [labelKeys.session]: spec.session,
      [labelKeys.repo]: spec.repoUrl,
      [labelKeys.deadline]: new Date(deadline).toISOString(),
      [labelKeys.workspace]: spec.workspace.root,
      [labelKeys.disk]: spec.workspace.disk.mechanism,
      [labelKeys.diskLimit]: String(spec.workspace.disk.limitBytes),
      [labelKeys.networkIsolation]: String(spec.networkIsolation ?? false),
      [labelKeys.allowedDomains]: (spec.allowedDomains ?? []).join(','),
      [labelKeys.installation]: spec.installation.id,
      [labelKeys.home]: spec.installation.home,
      ...(spec.poolOwner ? { [labelKeys.pool]: spec.poolOwner } : {}),
    },
    HostConfig: {
      Binds: [...mounts.binds],
      ...(mounts.volumes?.length ? { Mounts: mounts.volumes.map((target) => ({ Type: 'volume' as const, Source: '', Target: target })) } : {}),
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${spec.tmpSize ?? '256m'}` },
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      NetworkMode: spec.network ?? 'none',
      // On the services' internal network the engine's resolver (20.10) never answers a name that is not a service: the
      // C library waited 5 s × 2 tries × A and AAAA (20 s) before saying unknown. One 1-second try is its floor.
      ...(spec.network ? { DnsOptions: ['timeout:1', 'attempts:1'] } : {}),
      ...engineResources(machineLimits(spec.limits)),
      RestartPolicy: { Name: 'no' },
      LogConfig: { Type: 'json-file', Config: { 'max-size': containerLogLimit.maxSize, 'max-file': String(containerLogLimit.maxFiles) } },
    },
  };
}

/** The local engine's mounts of `spec`: its workspace folder at /workspace, then its extra binds. */
export function localMounts(spec: ContainerSpec): SandboxMounts {
  return { binds: [`${spec.workspace.dir}:/workspace:rw`, ...(spec.binds ?? [])] };
}

/** The error of a creation stopped by `signal` (its actor was stopped). */
function stoppedError(id: string): CadreError {
  return new CadreError('container-start-stopped', `The creation of ${id} was stopped`, { remedy: 'run /vm-create again' });
}

/** Creates and starts the container; a failed start, or one `signal` stopped, removes what was created and says why. */
export async function startContainer(options: {
  docker: Docker;
  spec: ContainerSpec;
  signal?: AbortSignal;
  mounts?: SandboxMounts;
  /** Told the container's id once the engine has it, before it is started (a remote workspace is filled through it). */
  onCreated?: (dockerId: string) => void;
}): Promise<{ dockerId: string; deadline: number }> {
  const create = containerCreateOptions(options.spec, options.mounts ?? localMounts(options.spec));
  let container: Docker.Container | undefined;
  try {
    if (options.signal?.aborted) throw stoppedError(options.spec.id);
    container = await options.docker.createContainer(create);
    if (options.signal?.aborted) throw stoppedError(options.spec.id);
    options.onCreated?.(container.id);
    await container.start();
    if (options.signal?.aborted) throw stoppedError(options.spec.id);
    return { dockerId: container.id, deadline: Date.parse(create.Labels![labelKeys.deadline]!) };
  } catch (error) {
    await container?.remove({ force: true }).catch(() => undefined);
    if (isCadreError(error) && error.code === 'container-start-stopped') throw error;
    if (engineStatus(error) === 404 && !container) {
      throw new CadreError('image-missing', `The sandbox image ${options.spec.image} is not on this engine`, { remedy: 'build it with `cadre vm image build`', cause: error });
    }
    const failed = engineError(error, `start container ${options.spec.id}`);
    if (failed.code === 'docker-unreachable') throw failed;
    throw new CadreError('container-start-failed', failed.message, {
      remedy: `check the runtime with /system-status --container-runtime, the repository with /test-connectivity ${options.spec.repoUrl}, and free resources with /system-resources --available`,
      cause: error,
    });
  }
}
