// The registry's bulk answer is hostile input: records are checked one by one, a document that is not an answer is a reason
// to fall back, and the credential sent is the one npm would send for that registry's URL.
import { describe, expect, it } from 'vitest';
import { mergeAdvisories } from '../../../src/capabilities/analysis/security/advisory-source.js';
import { authorizationFor } from '../../../src/capabilities/analysis/security/npm-audit-config.js';
import { bulkRequestOf, parseBulkAnswer } from '../../../src/capabilities/analysis/security/registry-advisories.js';

const asked = new Set(['express', 'qs']);
const record = (extra: Record<string, unknown>) => ({ id: 1, url: 'https://github.com/advisories/GHSA-rv95-896h-c2vc', title: 'Open redirect', severity: 'moderate', vulnerable_versions: '<4.19.2', cwe: ['CWE-601'], cvss: { score: 6.1 }, ...extra });

describe('the bulk answer', () => {
  it('reads the records npm reads, with the GHSA id, the first fix and a terminal-safe title', () => {
    const answer = parseBulkAnswer(JSON.stringify({ express: [record({ title: 'Open\u001b[2Jredirect\nhere' })] }), asked);
    expect(answer).toEqual({ ok: true, advisories: [{
      id: 'GHSA-rv95-896h-c2vc', packageName: 'express', vulnerable: '<4.19.2', patched: '>=4.19.2', title: 'Openredirect here', severity: 'Medium', aliases: [],
      url: 'https://github.com/advisories/GHSA-rv95-896h-c2vc',
    }] });
  });

  it('skips records it cannot read and packages it did not ask about, and refuses documents that are not answers', () => {
    const weird = [null, 7, 'text', record({ vulnerable_versions: '>=1 <'.repeat(5_000) }), record({ vulnerable_versions: 'not a range ||| x' }), record({ vulnerable_versions: 42 }), record({ id: undefined, url: 'javascript:alert(1)' })];
    const answer = parseBulkAnswer(JSON.stringify({ express: weird, 'left-pad': [record({})], ['__proto__']: [record({})] }), asked);
    expect(answer).toEqual({ ok: true, advisories: [] });
    expect(parseBulkAnswer('[]', asked)).toEqual({ ok: false, reason: 'the registry answered JSON that is not a bulk advisory report' });
    expect(parseBulkAnswer('<html>', asked)).toEqual({ ok: false, reason: 'the registry answered something that is not JSON' });
  });

  it('refuses an answer with more advisories than any lockfile has, without reading them one by one', () => {
    const started = performance.now();
    const answer = parseBulkAnswer(JSON.stringify({ express: Array.from({ length: 30_000 }, () => record({})) }), asked);
    expect(answer).toEqual({ ok: false, reason: 'the registry answered more than 20000 advisories' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('asks for each package once with every locked version, leaving out what is not a version', () => {
    expect(bulkRequestOf([
      { name: 'qs', version: '6.7.0' }, { name: 'qs', version: '6.7.0' }, { name: 'qs', version: '6.11.0' }, { name: 'local', version: 'file:../local' },
    ])).toEqual({ qs: ['6.7.0', '6.11.0'] });
  });

  it("keeps the bundled advisories the registry does not name, and drops those it does (by id, URL or alias)", () => {
    const base = { packageName: 'express', vulnerable: '<4.19.2', patched: '>=4.19.2', title: 't', severity: 'Medium' as const };
    const fromRegistry = [{ ...base, id: 'GHSA-rv95-896h-c2vc', aliases: [], url: 'https://github.com/advisories/GHSA-rv95-896h-c2vc' }];
    const bundled = [{ ...base, id: 'ghsa-rv95-896h-c2vc', aliases: ['CVE-2024-29041'] }, { ...base, id: 'GHSA-qw6h-vgh9-j6wx', aliases: [] }, { ...base, packageName: 'qs', id: 'GHSA-rv95-896h-c2vc', aliases: [] }];
    expect(mergeAdvisories(fromRegistry, bundled).map((advisory) => `${advisory.packageName} ${advisory.id}`)).toEqual(['express GHSA-rv95-896h-c2vc', 'express GHSA-qw6h-vgh9-j6wx', 'qs GHSA-rv95-896h-c2vc']);
  });
});

describe('the credential sent', () => {
  const registry = new URL('https://packages.example.test/npm/private/');
  it("is the one of the longest //host/path/ prefix that has one, as npm-registry-fetch picks it", () => {
    const settings = new Map([
      ['//packages.example.test/:_authToken', 'host-wide'],
      ['//packages.example.test/npm/private/:_authToken', 'exact'],
      ['//other.example.test/:_authToken', 'elsewhere'],
    ]);
    expect(authorizationFor(registry, settings)).toBe('Bearer exact');
    settings.delete('//packages.example.test/npm/private/:_authToken');
    expect(authorizationFor(registry, settings)).toBe('Bearer host-wide');
  });

  it('is Basic for _auth and for username with a base64 _password, and nothing for another host', () => {
    expect(authorizationFor(registry, new Map([['//packages.example.test/npm/:_auth', 'dXNlcjpwYXNz']]))).toBe('Basic dXNlcjpwYXNz');
    const basic = new Map([['//packages.example.test/:username', 'user'], ['//packages.example.test/:_password', Buffer.from('pass').toString('base64')]]);
    expect(authorizationFor(registry, basic)).toBe(`Basic ${Buffer.from('user:pass').toString('base64')}`);
    expect(authorizationFor(registry, new Map([['//other.example.test/:_authToken', 'elsewhere']]))).toBeNull();
  });
});
