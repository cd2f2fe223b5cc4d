// /vm-editor's extension list: gallery ids and workspace .vsix files, refusals with a remedy, and the gallery against the egress allowlist.
import { expect, it } from 'vitest';
import { galleryHosts, galleryRefusal, parseExtensions } from '../../src/cli/vm-editor-extensions.js';

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
