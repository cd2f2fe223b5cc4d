// The dockerode client cadre uses, and the translation of engine failures into errors that say what to do.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createSecureContext } from 'node:tls';
import { inspect } from 'node:util';
import Docker from 'dockerode';
import { CadreError } from '../errors.js';
import { resolveEngineEndpoint, type EngineEndpoint, type EngineTls } from './engine-endpoint.js';
import { SshEngineError, sshEngineAgent } from './engine-ssh.js';

/** The Docker client type, for modules outside src/container that hold one without driving it. */
export type DockerClient = Docker;

const endpoints = new WeakMap<Docker, EngineEndpoint>();
/** The engine of the last client made: what error messages name when they are not told which client failed. */
let lastEndpoint: EngineEndpoint | undefined;

/**
 * One agent per engine and set of TLS files for the process: every client of that engine (the start-up sweep's, the vm
 * side's) then takes an idle kept-alive connection, and a new one resumes the TLS session instead of a full handshake.
 */
const tlsAgents = new Map<string, HttpsAgent>();

/** The TLS files read into a secure context: the key never sits in request options (docker-modem's debug log prints those). */
function tlsAgent(tls: EngineTls): HttpsAgent {
  const read = (path: string | undefined, what: string): Buffer | undefined => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (error) {
      throw new CadreError('docker-config', `Cannot read the engine's TLS ${what} ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`, {
        remedy: 'point DOCKER_CERT_PATH at the folder holding ca.pem, cert.pem and key.pem, or recreate the docker context with its ca/cert/key',
      });
    }
  };
  const [ca, cert, key] = [read(tls.caPath, 'CA certificate'), read(tls.certPath, 'client certificate'), read(tls.keyPath, 'client key')];
  const files = createHash('sha256');
  for (const part of [ca, cert, key]) files.update(part ?? '-').update('\0');
  const id = `${tls.verify}:${files.digest('hex')}`;
  const known = tlsAgents.get(id);
  if (known) return known;
  let secureContext;
  try {
    secureContext = createSecureContext({ ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) });
  } catch (error) {
    throw new CadreError('docker-config', `The engine's TLS files (${[tls.caPath, tls.certPath, tls.keyPath].filter(Boolean).join(', ')}) cannot be used: ${(error as Error).message.split('\n')[0]}`, {
      remedy: 'check that cert.pem and key.pem belong together and are PEM files',
    });
  }
  const agent = quiet(new HttpsAgent({ secureContext, rejectUnauthorized: tls.verify, keepAlive: true }), 'engine TLS agent');
  tlsAgents.set(id, agent);
  return agent;
}

/** docker-modem's options: dockerode's type, plus the HTTP agent it passes to every request. */
type ModemOptions = Docker.DockerOptions & { agent?: Agent };

/**
 * The agent as util.inspect shows it: its name only. docker-modem formats every request's options for its debug log with
 * util.inspect(showHidden, unlimited depth) whether that log is on or not, agent included: with its kept-alive TLS sockets
 * that was ~100-250 ms of CPU in a remote /vm-create's ~20 requests (a CPU profile), and every socket's state in the text.
 */
function quiet<T extends Agent>(agent: T, name: string): T {
  Object.defineProperty(agent, inspect.custom, { value: () => `[${name}]` });
  return agent;
}

function clientOptions(endpoint: EngineEndpoint, env: Record<string, string | undefined>): ModemOptions {
  // Explicit values for everything docker-modem would otherwise take from the environment on its own.
  const cleared = { host: undefined, port: undefined, protocol: undefined, key: undefined, cert: undefined, ca: undefined, socketPath: undefined } as unknown as ModemOptions;
  if (endpoint.transport === 'unix') return { ...cleared, protocol: 'http', socketPath: endpoint.host.slice('unix://'.length) };
  if (endpoint.transport === 'ssh') return { ...cleared, protocol: 'http', host: 'docker', agent: quiet(sshEngineAgent(endpoint.host, env), 'ssh engine agent') };
  const url = new URL(endpoint.host);
  const port = url.port || (endpoint.tls ? '2376' : '2375');
  const base = { ...cleared, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  return endpoint.tls ? { ...base, protocol: 'https', agent: tlsAgent(endpoint.tls) } : { ...base, protocol: 'http' };
}

/**
 * A client for the engine `resolveEngineEndpoint` picks (DOCKER_HOST, DOCKER_CONTEXT, vm.engine, the docker CLI's
 * current context, the local socket), over a unix socket, TCP (+TLS) or ssh.
 */
export function createDockerClient(options: { engine?: string; env?: Record<string, string | undefined> } = {}): Docker {
  const env = options.env ?? process.env;
  const endpoint = resolveEngineEndpoint({ env, ...(options.engine ? { configured: options.engine } : {}) });
  let docker: Docker;
  try {
    docker = new Docker(clientOptions(endpoint, env) as Docker.DockerOptions);
  } catch (error) {
    if (error instanceof CadreError) throw error;
    throw new CadreError('docker-config', `Cannot use the Docker engine at ${endpoint.host}: ${error instanceof Error ? error.message : String(error)}`, {
      remedy: 'check DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH (DOCKER_CERT_PATH must hold ca.pem, cert.pem and key.pem)',
      cause: error,
    });
  }
  endpoints.set(docker, endpoint);
  lastEndpoint = endpoint;
  return docker;
}

/** The engine a client talks to; a client not made by createDockerClient is taken for the local socket. */
export function engineEndpointOf(docker: Docker): EngineEndpoint {
  return endpoints.get(docker) ?? resolveEngineEndpoint({ env: {} });
}

/** Where the client connects, for messages. */
export function dockerEndpoint(docker?: Docker): string {
  if (docker) return engineEndpointOf(docker).host;
  try {
    return (lastEndpoint ?? resolveEngineEndpoint()).host;
  } catch {
    return 'the configured engine';
  }
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);

/** True when `error` says the engine could not be reached at all (as opposed to refusing a request). */
export function isEngineUnreachable(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code !== undefined && unreachableCodes.has(code);
}

/** The HTTP status of a failed engine request, when it has one. */
export function engineStatus(error: unknown): number | undefined {
  return (error as { statusCode?: number } | undefined)?.statusCode;
}

/** Engine failures as CadreErrors: an unreachable daemon names the socket and the remedy; others keep the engine's message. */
export function engineError(error: unknown, doing: string): CadreError {
  if (error instanceof CadreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SshEngineError) {
    return new CadreError('docker-unreachable', `Cannot ${doing}: the Docker engine over ssh could not be reached: ${message}`, {
      remedy: `check that \`ssh ${error.destination} docker version\` works without a prompt (ssh-add your key, add the host to known_hosts, docker installed there), or unset DOCKER_HOST / vm.engine`,
      cause: error,
    });
  }
  if (isEngineUnreachable(error)) {
    const denied = (error as { code?: string }).code === 'EACCES';
    return new CadreError('docker-unreachable', `Cannot ${doing}: the Docker engine at ${dockerEndpoint()} ${denied ? 'refused this user' : 'does not answer'} (${message})`, {
      remedy: denied
        ? 'add your user to the docker group (then log in again), or set DOCKER_HOST; check with /system-status --container-runtime'
        : 'start the Docker engine (e.g. `sudo systemctl start docker`) or set DOCKER_HOST; check with /system-status --container-runtime',
      cause: error,
    });
  }
  return new CadreError('docker-failed', `Cannot ${doing}: ${message.replace(/^\(HTTP code \d+\)\s*/, '')}`, {
    remedy: 'check the engine with /system-status --container-runtime and free resources with /system-resources --available',
    cause: error,
  });
}
