// Which Docker engine cadre talks to, and over what: DOCKER_HOST, DOCKER_CONTEXT, vm.engine, the docker CLI's current context, or the local socket.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { CadreError } from '../errors.js';

export type EngineTransport = 'unix' | 'tcp' | 'tcp+tls' | 'ssh';

/** Where the choice of engine came from, strongest first (the order `resolveEngineEndpoint` applies). */
export type EngineSource = 'DOCKER_HOST' | 'DOCKER_CONTEXT' | 'vm.engine' | 'docker context' | 'default';

export interface EngineTls {
  /** Files, by path: their contents are read when the client is made and never shown. */
  caPath?: string;
  certPath?: string;
  keyPath?: string;
  /** False only for a docker context made with skip-tls-verify: the engine's certificate is then not checked. */
  verify: boolean;
}

export interface EngineEndpoint {
  source: EngineSource;
  /** The docker context's name, when the engine comes from one. */
  context?: string;
  transport: EngineTransport;
  /** unix:///path, tcp://host:port or ssh://user@host:port. */
  host: string;
  tls?: EngineTls;
}

const defaultSocket = (home: string): string => {
  const desktop = join(home, '.docker', 'run', 'docker.sock');
  return existsSync(desktop) ? desktop : '/var/run/docker.sock';
};

const configError = (message: string, remedy: string): CadreError => new CadreError('docker-config', message, { remedy });

/** The transport of a DOCKER_HOST-style address, or an error naming where the address came from. */
function transportOf(host: string, from: string): EngineTransport {
  const scheme = /^([a-z]+):\/\//.exec(host)?.[1];
  if (scheme === 'unix' || scheme === 'ssh' || scheme === 'tcp') return scheme;
  throw configError(`${from} is "${host}", which is not an engine address cadre can use`, 'use unix:///path/to/docker.sock, tcp://host:2376 (with DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH) or ssh://user@host');
}

/** TLS for a tcp:// address from DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, as the docker CLI reads them. */
function tlsFromEnv(env: Record<string, string | undefined>, configDir: string): EngineTls | undefined {
  if (!env.DOCKER_TLS_VERIFY) return undefined;
  const dir = env.DOCKER_CERT_PATH || configDir;
  return { caPath: join(dir, 'ca.pem'), certPath: join(dir, 'cert.pem'), keyPath: join(dir, 'key.pem'), verify: true };
}

function fromHost(host: string, source: EngineSource, env: Record<string, string | undefined>, configDir: string): EngineEndpoint {
  const transport = transportOf(host, source);
  if (transport !== 'tcp') return { source, transport, host };
  const tls = tlsFromEnv(env, configDir);
  return tls ? { source, transport: 'tcp+tls', host, tls } : { source, transport, host };
}

const contextMeta = z.object({
  Endpoints: z.object({ docker: z.object({ Host: z.string().min(1), SkipTLSVerify: z.boolean().optional() }) }).optional(),
});

/** The docker CLI's context `name`: its metadata and TLS files under the docker config folder (contexts/meta, contexts/tls). */
function fromContext(name: string, source: EngineSource, configDir: string, home: string): EngineEndpoint {
  if (name === 'default') return { source, context: name, transport: 'unix', host: `unix://${defaultSocket(home)}` };
  const id = createHash('sha256').update(name).digest('hex');
  const metaPath = join(configDir, 'contexts', 'meta', id, 'meta.json');
  let text: string;
  try {
    text = readFileSync(metaPath, 'utf8');
  } catch {
    throw configError(`The docker context "${name}" (from ${source === 'DOCKER_CONTEXT' ? 'DOCKER_CONTEXT' : source === 'vm.engine' ? 'vm.engine' : `currentContext in ${join(configDir, 'config.json')}`}) does not exist: no ${metaPath}`, '`docker context ls` lists the contexts; `docker context use default` goes back to the local engine');
  }
  let parsed: z.infer<typeof contextMeta>;
  try {
    parsed = contextMeta.parse(JSON.parse(text));
  } catch {
    throw configError(`The docker context "${name}" has unreadable metadata in ${metaPath}`, `recreate it with \`docker context rm ${name}\` and \`docker context create ${name} --docker host=…\``);
  }
  const docker = parsed.Endpoints?.docker;
  if (!docker) throw configError(`The docker context "${name}" has no Docker endpoint (${metaPath})`, `recreate it with \`docker context create ${name} --docker host=…\``);
  const transport = transportOf(docker.Host, `The docker context "${name}"`);
  const tlsDir = join(configDir, 'contexts', 'tls', id, 'docker');
  const file = (base: string): string | undefined => (existsSync(join(tlsDir, base)) ? join(tlsDir, base) : undefined);
  if (transport !== 'tcp' || (!file('ca.pem') && !file('cert.pem') && !docker.SkipTLSVerify)) return { source, context: name, transport, host: docker.Host };
  const tls: EngineTls = { verify: docker.SkipTLSVerify !== true };
  const [caPath, certPath, keyPath] = [file('ca.pem'), file('cert.pem'), file('key.pem')];
  if (caPath) tls.caPath = caPath;
  if (certPath) tls.certPath = certPath;
  if (keyPath) tls.keyPath = keyPath;
  return { source, context: name, transport: 'tcp+tls', host: docker.Host, tls };
}

function currentContext(configDir: string): string | undefined {
  const path = join(configDir, 'config.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = (JSON.parse(text) as { currentContext?: unknown }).currentContext;
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    throw configError(`${path} is not valid JSON, so the docker CLI's current context cannot be read`, 'fix the file (the docker CLI reads it too), or set DOCKER_HOST');
  }
}

/**
 * The engine to use, first match wins: DOCKER_HOST (with DOCKER_TLS_VERIFY/DOCKER_CERT_PATH), DOCKER_CONTEXT, cadre's
 * `vm.engine` (an address or a context name), the docker CLI's current context (`docker context use`), the local socket.
 * The environment wins over configuration files, as it does for the docker CLI.
 */
export function resolveEngineEndpoint(options: { env?: Record<string, string | undefined>; configured?: string } = {}): EngineEndpoint {
  const env = options.env ?? process.env;
  const home = env.HOME || homedir();
  const configDir = env.DOCKER_CONFIG || join(home, '.docker');
  if (env.DOCKER_HOST) return fromHost(env.DOCKER_HOST, 'DOCKER_HOST', env, configDir);
  if (env.DOCKER_CONTEXT) return fromContext(env.DOCKER_CONTEXT, 'DOCKER_CONTEXT', configDir, home);
  const configured = options.configured?.trim();
  if (configured) return configured.includes('://') ? fromHost(configured, 'vm.engine', env, configDir) : fromContext(configured, 'vm.engine', configDir, home);
  const current = currentContext(configDir);
  if (current && current !== 'default') return fromContext(current, 'docker context', configDir, home);
  return { source: 'default', transport: 'unix', host: `unix://${defaultSocket(home)}` };
}

/** One line for people: `tcp+TLS tcp://10.0.0.2:2376 (docker context "build", mutual TLS)`; TLS files by path, never their contents. */
export function describeEndpoint(endpoint: EngineEndpoint): string {
  const via = endpoint.context ? `docker context "${endpoint.context}"` : endpoint.source;
  const tls = endpoint.tls ? (endpoint.tls.verify ? (endpoint.tls.certPath ? ', mutual TLS' : ', TLS') : ', TLS without checking the engine\'s certificate') : endpoint.transport === 'tcp' ? ', unencrypted' : '';
  return `${endpoint.host} over ${endpoint.transport === 'tcp+tls' ? 'TCP+TLS' : endpoint.transport === 'unix' ? 'a unix socket' : endpoint.transport === 'ssh' ? 'ssh' : 'TCP'} (from ${via}${tls})`;
}
