// The egress allowlist: every refused class, the allow rules, and the registries read from npm's own configuration.
import { describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../src/gateway/egress-policy.js';
import type { EgressRules } from '../../src/gateway/egress-policy.js';
import { packageManagerRegistryHosts } from '../../src/gateway/registries.js';

/** A resolver with fixed answers, so each address class can be tried without touching DNS. */
const dns: Record<string, string[]> = {
  'git.example.test': ['93.184.216.34'],
  'pkgs.example.test': ['2606:4700::6810:85e5'],
  'a.cdn.example.test': ['93.184.216.35'],
  'b.a.cdn.example.test': ['93.184.216.36'],
  'loop.example.test': ['127.0.0.1'],
  'ten.example.test': ['10.1.2.3'],
  'home.example.test': ['192.168.1.1'],
  'corp.example.test': ['172.16.5.4'],
  'cgnat.example.test': ['100.64.0.1'],
  'meta.example.test': ['169.254.169.254'],
  'v6ll.example.test': ['fe80::1'],
  'ula.example.test': ['fd00::1'],
  'mapped.example.test': ['::ffff:10.0.0.1'],
  'v6loop.example.test': ['::1'],
  'mixed.example.test': ['93.184.216.34', '10.0.0.1'],
  'zero.example.test': ['0.0.0.0'],
};
const resolver = async (host: string): Promise<Array<{ address: string; family: number }>> => {
  const addresses = dns[host];
  if (addresses === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const allNames = Object.keys(dns).filter((name) => !name.startsWith('git.') && !name.startsWith('pkgs.') && !name.includes('cdn'));
const rules: EgressRules = {
  repoHost: 'git.example.test',
  registryHosts: ['pkgs.example.test'],
  allowedDomains: ['*.cdn.example.test', 'nowhere.example.test', ...allNames],
  networkIsolation: false,
};

describe('egress policy', () => {
  const decide = createEgressPolicy(rules, resolver);

  it('allows the repository host, the registries and allowed domains, with the checked address and the rule', async () => {
    expect(await decide('git.example.test', 443)).toEqual({ allowed: true, host: 'git.example.test', port: 443, address: '93.184.216.34', family: 4, rule: 'repository-host' });
    expect(await decide('PKGS.example.test', 443)).toMatchObject({ allowed: true, rule: 'package-registry', address: '2606:4700::6810:85e5', family: 6 });
    expect(await decide('a.cdn.example.test', 80)).toMatchObject({ allowed: true, rule: 'allowed-domain *.cdn.example.test' });
    expect(await decide('b.a.cdn.example.test', 443)).toMatchObject({ allowed: true });
  });

  it.each([
    ['not-allowlisted', 'evil.test', 443],
    ['not-allowlisted', 'cdn.example.test', 443],
    ['not-allowlisted', 'xcdn.example.test', 443],
    ['not-allowlisted', 'git.example.test.evil.test', 443],
    ['port', 'git.example.test', 22],
    ['port', 'git.example.test', 8443],
    ['ip-literal', '93.184.216.34', 443],
    ['ip-literal', '127.0.0.1', 443],
    ['ip-literal', '[::1]', 443],
    ['ip-literal', '::1', 443],
    ['ip-literal', '2130706433', 443],
    ['ip-literal', '0x7f.1', 443],
    ['ip-literal', '0177.0.0.1', 443],
    ['malformed-host', 'git.example.test.', 443],
    ['malformed-host', 'git.example.test..', 443],
    ['malformed-host', 'git.example.test\u0000.evil.test', 443],
    ['malformed-host', 'git.example.test\r\nx', 443],
    ['malformed-host', 'git..example.test', 443],
    ['malformed-host', 'git.example%2etest', 443],
    ['malformed-host', 'git_example.test', 443],
    ['malformed-host', '', 443],
    ['malformed-host', `${'a'.repeat(64)}.example.test`, 443],
    ['loopback-address', 'loop.example.test', 443],
    ['loopback-address', 'v6loop.example.test', 443],
    ['private-address', 'ten.example.test', 443],
    ['private-address', 'home.example.test', 443],
    ['private-address', 'corp.example.test', 443],
    ['private-address', 'cgnat.example.test', 443],
    ['private-address', 'ula.example.test', 443],
    ['private-address', 'mapped.example.test', 443],
    ['private-address', 'mixed.example.test', 443],
    ['private-address', 'zero.example.test', 443],
    ['link-local-address', 'meta.example.test', 80],
    ['link-local-address', 'v6ll.example.test', 443],
    ['dns', 'nowhere.example.test', 443],
  ])('refuses by rule %s: %j port %i', async (rule, host, port) => {
    expect(await decide(host, port)).toMatchObject({ allowed: false, rule });
  });

  it('allows nothing under network isolation', async () => {
    const isolated = createEgressPolicy({ ...rules, networkIsolation: true }, resolver);
    expect(await isolated('git.example.test', 443)).toMatchObject({ allowed: false, rule: 'network-isolation' });
  });

  it('reaches loopback on any port only with the explicit test option', async () => {
    const loose = createEgressPolicy({ ...rules, allowLoopbackUpstreams: true }, resolver);
    expect(await loose('loop.example.test', 4873)).toMatchObject({ allowed: true, address: '127.0.0.1' });
    expect(await loose('git.example.test', 4873)).toMatchObject({ allowed: false, rule: 'port' });
    expect(await loose('ten.example.test', 443)).toMatchObject({ allowed: false, rule: 'private-address' });
    expect(await loose('127.0.0.1', 4873)).toMatchObject({ allowed: false, rule: 'ip-literal' });
  });
});

describe('registries from the package managers', () => {
  it("reads the registry host from npm's own configuration at run time", async () => {
    const hosts = await packageManagerRegistryHosts({ env: { ...process.env, npm_config_registry: 'http://registry.cadre-test.invalid:4873/' } });
    expect(hosts).toContain('registry.cadre-test.invalid');
  });
});
