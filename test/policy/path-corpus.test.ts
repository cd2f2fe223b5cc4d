// Every line of the path corpus is a case, checked against a real workspace with real symbolic links.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPath } from '../../src/policy/path-policy.js';
import { readPathCorpus } from './corpus.js';

const cases = readPathCorpus(new URL('./corpus/paths.txt', import.meta.url));
let root = '';
let workspace = '';

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'cadre-policy-'));
  workspace = path.join(root, 'ws');
  mkdirSync(path.join(root, 'outside'));
  writeFileSync(path.join(root, 'outside', 'secret'), 'secret');
  for (const folder of ['src', 'docs', '.git/hooks', 'nested/deep/dir']) mkdirSync(path.join(workspace, folder), { recursive: true });
  writeFileSync(path.join(workspace, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(path.join(workspace, '.git', 'config'), '[core]\n');
  symlinkSync('src', path.join(workspace, 'link-in'));
  symlinkSync('/etc', path.join(workspace, 'link-out'));
  symlinkSync('../outside', path.join(workspace, 'link-rel-out'));
  symlinkSync('../outside/secret', path.join(workspace, 'file-link-out'));
  symlinkSync('/nonexistent-cadre/x', path.join(workspace, 'dangling'));
  symlinkSync('loop', path.join(workspace, 'loop'));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the path corpus', () => {
  it('holds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('$decision line $line: $input', ({ input, decision, rule }) => {
    const candidate = input.replaceAll('$WS', workspace);
    expect(checkPath(candidate, { workspace })).toMatchObject({ decision, rule });
  });

  it('reads .git internals when asked for read access only', () => {
    expect(checkPath('.git/config', { workspace, access: 'read' })).toMatchObject({ decision: 'allow' });
  });

  it('denies everything when the workspace does not exist', () => {
    expect(checkPath('a.ts', { workspace: path.join(root, 'missing') })).toMatchObject({ decision: 'deny', rule: 'policy.path.no-workspace' });
  });

  it('reports the real path of an allowed path reached through an inner link', () => {
    expect(checkPath('link-in/a.ts', { workspace }).path).toBe(path.join(workspace, 'src', 'a.ts'));
  });
});
