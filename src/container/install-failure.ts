// Why an install in a container failed, in the person's words: the hosts the gateway refused while it ran (from its egress log), the dependency script that failed, and what to do.
import { stripVTControlCharacters } from 'node:util';
import { CadreError } from '../errors.js';

export interface RefusedHost {
  host: string;
  port: number;
  rule: string;
  reason: string;
}

/** The dependency whose lifecycle script failed, as npm, yarn (v1 and berry) and pnpm report it. */
export function failedScript(output: string): { pkg: string; script?: string; command?: string } | undefined {
  const text = stripVTControlCharacters(output);
  const pnpm = /node_modules\/(?:\.pnpm\/[^/\s]+\/node_modules\/)?((?:@[^/\s]+\/)?[^/\s:]+)[^\s]*:?\s+Running (\w+) script, failed/.exec(text);
  if (pnpm) return { pkg: pnpm[1]!, script: pnpm[2]! };
  const npmPath = /npm (?:error|ERR!) path \S*?((?:@[^/\s]+\/)?[^/\s]+)\s*$/m.exec(text);
  const npmCommand = /npm (?:error|ERR!) command sh -c (.+)$/m.exec(text);
  if (npmPath) return { pkg: npmPath[1]!, ...(npmCommand ? { command: npmCommand[1]!.trim() } : {}) };
  const yarn = /error \S*node_modules\/((?:@[^/\s]+\/)?[^/\s:]+): Command failed\.[\s\S]*?Command: (.+)$/m.exec(text);
  if (yarn) return { pkg: yarn[1]!, command: yarn[2]!.trim() };
  const berry = /➤ YN0009: │ ((?:@[^/\s]+\/)?[^@\s]+)@\S+ couldn't be built successfully/.exec(text);
  if (berry) return { pkg: berry[1]! };
  return undefined;
}

/** Hosts a tool in the container tried to reach on its own (DNS lookups and connections that never met the gateway), from its output. */
export function directConnections(output: string): { host: string; code: string }[] {
  const text = stripVTControlCharacters(output);
  const found = new Map<string, string>();
  for (const match of text.matchAll(/getaddrinfo (EAI_AGAIN|ENOTFOUND) ([A-Za-z0-9.-]{1,253})/g)) found.set(match[2]!, match[1]!);
  for (const match of text.matchAll(/connect (ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT) ([0-9a-fA-F.:[\]]{2,64}:\d{1,5})/g)) {
    if (!/^127\.0\.0\.1:|^\[?::1\]?:/.test(match[2]!)) found.set(match[2]!, match[1]!);
  }
  return [...found].slice(0, 5).map(([host, code]) => ({ host, code }));
}

/** The error of a failed install: the refused hosts and the failing script when there are any, never a guess at the allowlist. */
export function explainInstallFailure(input: { id: string; command: string[]; exitCode: number; output: string; refused: RefusedHost[]; ignoreScripts: boolean }): CadreError {
  const { id } = input;
  const hosts = [...new Map(input.refused.map((entry) => [entry.host, entry])).values()];
  const script = failedScript(input.output);
  const direct = hosts.length ? [] : directConnections(input.output);
  const who = script ? `the ${script.script ?? 'install'} script of ${script.pkg}${script.command ? ` (${script.command.slice(0, 120)})` : ''}` : undefined;
  const parts = [`${input.command.join(' ')} failed in ${id} (exit ${input.exitCode}).`];
  if (hosts.length) {
    parts.push(`The gateway refused ${hosts.map((entry) => `${entry.host}:${entry.port} (${entry.reason})`).join(', ')}${who ? `; ${who} failed` : ''}.`);
  } else if (direct.length) {
    parts.push(`It tried to reach ${direct.map((entry) => `${entry.host} (${entry.code})`).join(', ')} directly, not through the gateway's proxy: the sandbox has no network or DNS of its own, so such a connection fails there before the allowlist is asked${who ? `; ${who} failed` : ''}.`);
  } else {
    parts.push(`No egress was refused while it ran and its output shows no failed connection, so the allowlist is not the cause${who ? `; ${who} failed` : ''}: read its output above.`);
  }
  const remedies: string[] = [];
  if (hosts.length) remedies.push(`allow ${hosts.length > 1 ? 'them' : 'it'} with /vm-config --allowed-domains "${hosts.map((entry) => entry.host).join(',')}" --container ${id}, then run /vm-install-deps again`);
  if (!input.ignoreScripts && (who || hosts.length)) remedies.push(`or skip the dependencies' install scripts with /vm-install-deps --ignore-scripts --container ${id}`);
  if (direct.length) remedies.push(`the tool that made the connection ignores the proxy variables the container has (HTTPS_PROXY, npm_config_registry and each package manager's own): give it its proxy setting with /vm-config --env "NAME=value" --container ${id}, or install with a package manager that uses them`);
  if (!remedies.length) remedies.push('fix what its output names (a lockfile out of date, a version the registry does not have), then run /vm-install-deps again');
  return new CadreError('vm.install-failed', parts.join(' '), { remedy: remedies.join(', ') });
}

/**
 * After an install that succeeded while the gateway refused hosts (a script that tolerated its failed download, e.g. a
 * tool fetching its binary): what may be missing and how to allow it. Undefined when nothing was refused.
 */
export function refusedDuringInstall(id: string, refused: RefusedHost[]): string | undefined {
  const hosts = [...new Set(refused.map((entry) => `${entry.host}:${entry.port}`))];
  if (!hosts.length) return undefined;
  const names = [...new Set(refused.map((entry) => entry.host))].join(',');
  return `The install succeeded, but the gateway refused ${hosts.join(', ')} while it ran: whatever a dependency's script meant to fetch from there is missing. If the project needs it, allow it with /vm-config --allowed-domains "${names}" --container ${id}, then run /vm-install-deps again.`;
}
