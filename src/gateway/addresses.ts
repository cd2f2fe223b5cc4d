// Host-name and address checks for egress: well-formed DNS names only, and no loopback, link-local or private targets.
import { BlockList, isIP } from 'node:net';

export type HostRefusal = 'malformed-host' | 'ip-literal';
export type AddressClass = 'public' | 'loopback' | 'link-local' | 'private';

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks a host as written in a CONNECT target or absolute URL. Only lowercase-able DNS names
 * pass: no IP literal in any notation (dotted, decimal, octal, hex, bracketed IPv6), no
 * control characters, percent-encoding, empty labels or trailing dot, no all-numeric top label.
 */
export function checkHostName(host: string): { ok: true; name: string } | { ok: false; refusal: HostRefusal } {
  if (host.startsWith('[') || isIP(host) !== 0) return { ok: false, refusal: 'ip-literal' };
  if (host.length === 0 || host.length > 253 || /[^\x21-\x7e]/.test(host)) return { ok: false, refusal: 'malformed-host' };
  const name = host.toLowerCase();
  const labels = name.split('.');
  if (!labels.every((part) => label.test(part))) return { ok: false, refusal: 'malformed-host' };
  const top = labels[labels.length - 1] ?? '';
  // 2130706433, 0x7f.1, 0177.0.0.1: names that resolvers read as IPv4 addresses.
  if (/^(0x[0-9a-f]*|[0-9]+)$/.test(top)) return { ok: false, refusal: 'ip-literal' };
  return { ok: true, name };
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const linkLocal = new BlockList();
linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
linkLocal.addSubnet('fe80::', 10, 'ipv6');

// Internal, shared, multicast and reserved ranges. The documentation ranges (192.0.2.0/24, 198.51.100.0/24,
// 203.0.113.0/24, 2001:db8::/32) are not internal networks; some sandboxes route a package registry there.
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) nonPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['fc00::', 7], ['ff00::', 8], ['64:ff9b::', 96], ['100::', 64]] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** Classifies a resolved address; IPv4-mapped IPv6 addresses are judged by their IPv4 part. */
export function classifyAddress(address: string): AddressClass {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (loopback.check(ip, family)) return 'loopback';
  if (linkLocal.check(ip, family)) return 'link-local';
  if (nonPublic.check(ip, family)) return 'private';
  if (family === 'ipv6' && /^::ffff:/i.test(ip)) return 'private';
  return 'public';
}
