// Address classes for egress: internal ranges are refused; documentation ranges, which some sandboxes route registries to, are not.
import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/gateway/addresses.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'],
    ['10.1.2.3', 'private'], ['172.20.0.1', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'],
    ['0.0.0.0', 'private'], ['224.0.0.1', 'private'], ['fd00::1', 'private'], ['::ffff:10.0.0.1', 'private'],
    ['93.184.216.34', 'public'], ['203.0.113.80', 'public'], ['198.51.100.7', 'public'], ['2001:db8::1', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});
