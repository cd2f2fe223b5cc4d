// The egress allowlist: which host and port a container may reach, and the one checked address to connect to.
import { lookup as dnsLookup } from 'node:dns/promises';
import { checkHostName, classifyAddress } from './addresses.js';

export interface EgressRules {
  /** The repository's git host. */
  repoHost?: string;
  /** Hosts of the registries npm's and yarn's configuration name. */
  registryHosts: string[];
  /** `--allowed-domains`: exact names, or `*.domain` for its subdomains. */
  allowedDomains: string[];
  /** `--network-isolation`: nothing is allowed. */
  networkIsolation: boolean;
  /** For tests with local upstreams only: loopback targets are allowed, on any port. Off by default. */
  allowLoopbackUpstreams?: boolean;
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export type EgressDecision =
  | { allowed: true; host: string; port: number; address: string; family: 4 | 6; rule: string }
  | { allowed: false; host: string; port: number; rule: string; reason: string };

const allowedPorts = new Set([80, 443]);

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Creates the decision function. A host must pass the name checks, match a rule, and resolve
 * only to public addresses; the decision carries the address to connect to, so nothing is
 * resolved again between the check and the connection.
 */
export function createEgressPolicy(rules: EgressRules, resolve: Resolver = systemResolver): (host: string, port: number) => Promise<EgressDecision> {
  const exact = new Map<string, string>();
  const suffixes: Array<[suffix: string, rule: string]> = [];
  if (rules.repoHost) exact.set(rules.repoHost.toLowerCase(), 'repository-host');
  for (const host of rules.registryHosts) exact.set(host.toLowerCase(), 'package-registry');
  for (const domain of rules.allowedDomains.map((entry) => entry.trim().toLowerCase()).filter(Boolean)) {
    if (domain.startsWith('*.')) suffixes.push([domain.slice(1), `allowed-domain ${domain}`]);
    else exact.set(domain, `allowed-domain ${domain}`);
  }
  const loopbackAllowed = rules.allowLoopbackUpstreams === true;

  return async (rawHost, port) => {
    const refuse = (rule: string, reason: string): EgressDecision => ({ allowed: false, host: rawHost, port, rule, reason });
    if (rules.networkIsolation) return refuse('network-isolation', 'network isolation is on: no egress is allowed');
    const checked = checkHostName(rawHost);
    if (!checked.ok) {
      return refuse(checked.refusal, checked.refusal === 'ip-literal' ? 'IP addresses are not allowed, only host names' : 'the host name is malformed');
    }
    const host = checked.name;
    const rule = exact.get(host) ?? suffixes.find(([suffix]) => host.endsWith(suffix))?.[1];
    if (rule === undefined) return refuse('not-allowlisted', `${host} is not the repository host, a configured registry or an allowed domain`);
    if (!Number.isInteger(port) || (!allowedPorts.has(port) && !loopbackAllowed)) return refuse('port', `port ${port} is not 80 or 443`);

    let addresses: Array<{ address: string; family: number }>;
    try {
      addresses = await resolve(host);
    } catch (error) {
      return refuse('dns', `${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (addresses.length === 0) return refuse('dns', `${host} has no address`);
    for (const { address } of addresses) {
      const addressClass = classifyAddress(address);
      if (addressClass === 'public' || (addressClass === 'loopback' && loopbackAllowed)) continue;
      return refuse(`${addressClass}-address`, `${host} resolves to ${address}, a ${addressClass} address`);
    }
    const chosen = addresses[0];
    if (chosen === undefined) return refuse('dns', `${host} has no address`);
    if (!allowedPorts.has(port) && classifyAddress(chosen.address) !== 'loopback') return refuse('port', `port ${port} is not 80 or 443`);
    return { allowed: true, host, port, address: chosen.address, family: chosen.family === 6 ? 6 : 4, rule };
  };
}
