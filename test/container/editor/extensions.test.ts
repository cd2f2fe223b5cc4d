// /vm-editor's extension list: gallery ids and workspace .vsix files, refusals with a remedy, and the gallery against the egress allowlist.
import { expect, it } from 'vitest';
import { galleryHosts, galleryRefusal, installFailure, parseExtensions } from '../../../src/container/editor/extensions.js';

it('parses gallery ids and .vsix files (relative to /workspace), dropping blanks and repeats', () => {
  expect(parseExtensions(' esbenp.prettier-vscode, tools/x.vsix,,/workspace/y.VSIX, esbenp.prettier-vscode,ms-python.python@2024.1.0 ')).toEqual([
    { spec: 'esbenp.prettier-vscode', source: 'gallery', id: 'esbenp.prettier-vscode' },
    { spec: 'tools/x.vsix', source: 'vsix', path: '/workspace/tools/x.vsix' },
    { spec: '/workspace/y.VSIX', source: 'vsix', path: '/workspace/y.VSIX' },
    { spec: 'ms-python.python@2024.1.0', source: 'gallery', id: 'ms-python.python@2024.1.0' },
  ]);
  expect(parseExtensions(undefined)).toEqual([]);
});

it('refuses names that are not extensions and .vsix files outside the workspace, as a usage error', () => {
  for (const bad of ['prettier', '../outside.vsix', '/etc/x.vsix', 'a.b;rm -rf /', '-x.y']) {
    expect(() => parseExtensions(bad), bad).toThrow(expect.objectContaining({ code: 'vm.editor-bad-extension', exitCode: 2 }));
  }
});

it('names the gallery hosts missing from the allowlist and the command that adds them, keeping the domains already allowed', () => {
  const refusal = galleryRefusal({ networkIsolation: false, allowedDomains: ['example.org'] }, 'vm-3f2a');
  expect(refusal).toContain(`/vm-config --allowed-domains "example.org,${galleryHosts.join(',')}" --container vm-3f2a`);
  expect(galleryRefusal({ networkIsolation: false, allowedDomains: ['open-vsx.org'] }, 'vm-3f2a')).toMatch(/openvsxorg\.blob\.core\.windows\.net/);
  expect(galleryRefusal({ networkIsolation: false, allowedDomains: ['open-vsx.org', '*.core.windows.net'] }, 'vm-3f2a')).toBeUndefined();
  expect(galleryRefusal({ networkIsolation: true, allowedDomains: [...galleryHosts] }, 'vm-3f2a')).toMatch(/network isolation/);
});

it("keeps the lines of code-server's installer output that say what failed, not its stack trace", () => {
  const missingFile = [
    'Installing extensions...', "g [Error]: ENOENT: no such file or directory, open '/workspace/nope.vsix'", '    at v (/opt/editor/server.main.js:105:2079)',
    '  type: undefined,', "  cause: [Error: ENOENT: no such file or directory, open '/workspace/nope.vsix'] {", '    errno: -2,', '}',
    'Failed Installing Extensions: file:///workspace/nope.vsix',
  ].join('\n');
  expect(installFailure(missingFile)).toBe("ENOENT: no such file or directory, open '/workspace/nope.vsix'; Failed Installing Extensions: file:///workspace/nope.vsix");
  const notFound = "Installing extensions...\nExtension 'a.b' not found. Make sure you use the full extension ID, including the publisher, e.g.: ms-dotnettools.csharp\nFailed Installing Extensions: a.b";
  expect(installFailure(notFound)).toMatch(/^Extension 'a\.b' not found\..*; Failed Installing Extensions: a\.b$/);
  expect(installFailure('')).toBe('');
});
