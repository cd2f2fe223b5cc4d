// The agent tools against real temporary projects: reads, search, staged writes, limits and permissions.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, truncateSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, releaseReaders, toolContext, within } from './context.js';

const big = 'x'.repeat(101 * 1024);

describe('reading', () => {
  it('reads by line range with line numbers, and stops at 100 KB per read', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i + 1} ${'y'.repeat(10)}`).join('\n');
    const root = makeProject({ 'src/a.ts': 'one\ntwo\nthree\n', 'big.txt': lines });
    const { call } = toolContext(root);
    const range = await call('read-file', { path: 'src/a.ts', startLine: 2, endLine: 3 });
    expect(range.result).toMatchObject({ isError: false, output: '2\ttwo\n3\tthree' });
    const whole = await call('read-file', { path: 'big.txt' });
    expect(Buffer.byteLength(whole.result.output)).toBeLessThan(101 * 1024);
    expect(whole.result.output).toMatch(/100 KB read limit after line (\d+) of 30000; continue with startLine \d+/);
  });

  it('lists files respecting .gitignore and search finds literal text or regular expressions', async () => {
    const root = makeProject({
      '.gitignore': 'dist/\n*.log\n',
      'src/app.ts': 'export const total = price * (1 + rate);\n',
      'src/lib/.gitignore': 'generated.ts\n',
      'src/lib/generated.ts': 'price * (1 + rate)\n',
      'dist/app.js': 'price * (1 + rate)\n',
      'debug.log': 'price * (1 + rate)\n',
    });
    const { call } = toolContext(root);
    const listed = await call('list-files', {});
    expect(listed.result.output.split('\n')).toEqual(['.gitignore', 'src/app.ts', 'src/lib/.gitignore']);
    const literal = await call('search', { query: 'price * (1 + rate)' });
    expect(literal.result.output).toBe('src/app.ts:1: export const total = price * (1 + rate);');
    const regex = await call('search', { query: 'total\\s*=', regex: true });
    expect(regex.result.output).toContain('src/app.ts:1:');
    const bad = await call('search', { query: '(', regex: true });
    expect(bad.result).toMatchObject({ isError: true });
  });
});

describe('staged writes', () => {
  it('never touch the disk, and later reads, lists and searches see them', async () => {
    const root = makeProject({ 'src/a.ts': 'export const a = 1;\n', 'src/old.ts': 'old\n' });
    const { call, context } = toolContext(root);
    expect((await call('write-file', { path: 'src/b.ts', content: 'export const b = 2;\n', summary: 'Add b' })).outcome).toBe('ok');
    expect((await call('edit-file', { path: 'src/a.ts', search: '= 1', replace: '= 10' })).outcome).toBe('ok');
    expect((await call('delete-file', { path: 'src/old.ts' })).outcome).toBe('ok');
    expect(existsSync(join(root, 'src/b.ts'))).toBe(false);
    expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(existsSync(join(root, 'src/old.ts'))).toBe(true);
    expect((await call('read-file', { path: 'src/a.ts' })).result.output).toBe('1\texport const a = 10;\n2\t');
    expect((await call('list-files', { path: 'src' })).result.output).toBe('src/a.ts (staged)\nsrc/b.ts (staged)');
    expect((await call('search', { query: 'const b' })).result.output).toBe('src/b.ts:1: export const b = 2;');
    expect((await context.view.changes()).map((c) => [c.path, c.before === null, c.after === null])).toEqual([
      ['src/b.ts', true, false], ['src/a.ts', false, false], ['src/old.ts', false, true],
    ]);
    expect(context.plan.summaries.get('src/b.ts')).toEqual({ summary: 'Add b' });
  });

  it('edit-file must match exactly once', async () => {
    const root = makeProject({ 'a.ts': 'x = 1;\nx = 1;\ny = 2;\n' });
    const { call } = toolContext(root);
    const twice = await call('edit-file', { path: 'a.ts', search: 'x = 1;', replace: 'x = 3;' });
    expect(twice).toMatchObject({ outcome: 'refused', result: { isError: true } });
    expect(twice.result.output).toMatch(/occurs 2 times/);
    expect((await call('edit-file', { path: 'a.ts', search: 'z = 9;', replace: '' })).result.output).toMatch(/not found/);
    expect((await call('edit-file', { path: 'a.ts', search: 'x = 1;\ny', replace: 'x = 5;\ny' })).outcome).toBe('ok');
  });

  it('edit-file matches a file with Windows line endings and keeps them', async () => {
    const root = makeProject({ 'w.ts': 'a = 1;\r\nb = 2;\r\n' });
    const { call, context } = toolContext(root);
    expect((await call('edit-file', { path: 'w.ts', search: 'a = 1;\nb = 2;', replace: 'a = 1;\nb = 3;' })).outcome).toBe('ok');
    expect((await context.view.read('w.ts'))?.toString()).toBe('a = 1;\r\nb = 3;\r\n');
  });

  it('refuses files over 100 KB, and binary files by content, with a line for the user', async () => {
    const root = makeProject({ 'big.txt': big, 'logo.dat': Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]), 'small.txt': 'hi\n' });
    const { call, audit } = toolContext(root);
    const write = await call('write-file', { path: 'new.txt', content: big });
    expect(write.result.output).toMatch(/over 100 KB cannot be written/);
    expect(write).toMatchObject({ outcome: 'refused', display: expect.stringMatching(/^write-file: the new new\.txt would be/) });
    expect((await call('edit-file', { path: 'big.txt', search: 'xx', replace: 'y' })).result.output).toMatch(/over 100 KB cannot be edited/);
    expect((await call('edit-file', { path: 'small.txt', search: 'hi', replace: big })).result.output).toMatch(/over 100 KB/);
    for (const attempt of [
      call('write-file', { path: 'logo.dat', content: 'text' }),
      call('edit-file', { path: 'logo.dat', search: 'P', replace: 'Q' }),
      call('delete-file', { path: 'logo.dat' }),
    ]) expect((await attempt).result.output).toMatch(/binary files cannot be modified/);
    expect(audit.filter((entry) => entry.outcome === 'refused')).toHaveLength(6);
  });
});

describe('permissions', () => {
  it('denies .env files, .git, private keys and paths outside the project, to reads and writes', async () => {
    const root = makeProject({ '.env': 'SECRET=1\n', 'config/.env.local': 'X=1\n', '.git/config': '[core]\n', 'keys/id_rsa': 'k', 'ok.txt': 'fine\n' });
    symlinkSync('/etc', join(root, 'etc-link'));
    const { call } = toolContext(root);
    for (const [name, input, reason] of [
      ['read-file', { path: '.env' }, /denied \(pattern \*\*\/\.env\)/],
      ['read-file', { path: 'config/.env.local' }, /denied/],
      ['read-file', { path: '.git/config' }, /denied/],
      ['read-file', { path: 'keys/id_rsa' }, /denied/],
      ['read-file', { path: '../outside.txt' }, /outside the project/],
      ['read-file', { path: '/etc/passwd' }, /outside the project/],
      ['read-file', { path: 'etc-link/passwd' }, /symbolic link/],
      ['write-file', { path: '.env', content: 'x' }, /denied/],
      ['write-file', { path: '.cadre/undo/x.json', content: '{}' }, /denied/],
    ] as const) {
      const run = await call(name, input);
      expect(run.result.output, `${name} ${JSON.stringify(input)}`).toMatch(reason);
      expect(run.outcome).toBe('refused');
    }
    expect((await call('list-files', {})).result.output).toBe('ok.txt\n[3 files hidden by the read permissions]');
    expect((await call('search', { query: 'SECRET' })).result.output).toBe('No matches.');
  });

  it('applies config allow and deny globs; deny wins', async () => {
    const root = makeProject({ 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    const { call } = toolContext(root, { read: { allow: ['**'], deny: ['docs/**'] }, write: { allow: ['src/**'], deny: ['src/generated/**'] } });
    expect((await call('read-file', { path: 'docs/x.md' })).result.output).toMatch(/denied \(pattern docs\/\*\*\)/);
    expect((await call('write-file', { path: 'README.md', content: 'x' })).result.output).toMatch(/not in the allowed patterns/);
    expect((await call('write-file', { path: 'src/generated/t.ts', content: 'x' })).result.output).toMatch(/denied/);
    expect((await call('write-file', { path: 'src/b.ts', content: 'x' })).outcome).toBe('ok');
  });

  it('rejects invalid parameters and unknown tools as tool errors', async () => {
    const { call } = toolContext(makeProject({}));
    expect((await call('read-file', { file: 'x' })).result.output).toMatch(/Invalid parameters for read-file: path:/);
    expect((await call('run-shell', { command: 'ls' })).result.output).toMatch(/no tool named/);
    expect((await call('propose-plan', { title: 'Nothing' })).result.output).toMatch(/no staged changes/);
  });
});

describe('analyze', () => {
  it('runs the security analysis and leaves out findings in denied files', async () => {
    const root = makeProject({
      'package.json': '{ "name": "demo" }\n',
      'src/db.js': 'export const handler = (req, res) => res.send(eval(req.query.code));\n',
      'src/secret/key.js': 'export const key = "AKIAIOSFODNN7EXAMPLE";\n',
    });
    const denied = toolContext(root, { read: { allow: ['**'], deny: ['src/secret/**'] }, write: { allow: ['**'], deny: [] } });
    const run = await denied.call('analyze', { kind: 'security' });
    expect(run.outcome).toBe('ok');
    expect(run.result.output).toMatch(/src\/db\.js/);
    expect(run.result.output).not.toMatch(/src\/secret\/key\.js/);
    expect(run.result.output).toMatch(/1 findings in files the read permissions deny are not shown/);
    const open = await toolContext(root).call('analyze', { kind: 'security' });
    expect(open.result.output).toMatch(/src\/secret\/key\.js/);
  });
});

it('refuses to write over a folder', async () => {
  const { call } = toolContext(makeProject({ 'src/a.ts': 'a\n' }));
  expect((await call('write-file', { path: 'src', content: 'x' })).result.output).toMatch(/src is a folder/);
  expect((await call('read-file', { path: 'src' })).result.output).toMatch(/is a folder/);
});

it('refuses to read or change a named pipe in the project, at once, and the next read still works', async () => {
  const root = makeProject({ 'ok.txt': 'fine\n' });
  execFileSync('mkfifo', [join(root, 'pipe')]);
  const { call } = toolContext(root);
  try {
    for (const [name, input] of [
      ['read-file', { path: 'pipe' }],
      ['write-file', { path: 'pipe', content: 'x' }],
      ['edit-file', { path: 'pipe', search: 'a', replace: 'b' }],
      ['delete-file', { path: 'pipe' }],
    ] as const) {
      const run = await within(3_000, call(name, input));
      expect(run, name).toMatchObject({ outcome: 'refused', result: { output: expect.stringMatching(/pipe is not a regular file/) } });
    }
    expect(await within(3_000, call('read-file', { path: 'ok.txt' }))).toMatchObject({ result: { output: '1\tfine\n2\t' } });
  } finally {
    releaseReaders(join(root, 'pipe'));
  }
});

it('search leaves out files too big to search without reading them, even one over 2 GB', async () => {
  const root = makeProject({ 'src/a.ts': 'export const needle = 1;\n', 'src/dump.txt': '' });
  // Sparse: 3 GB on paper, nothing on disk. Reading it whole fails (over 2 GB), or would hold gigabytes.
  truncateSync(join(root, 'src/dump.txt'), 3 * 1024 ** 3);
  const { call } = toolContext(root);
  expect((await call('search', { query: 'needle' })).result).toMatchObject({ isError: false, output: 'src/a.ts:1: export const needle = 1;' });
});

it('a pattern that makes a backtracking RegExp run for hours, (a+)+$ on a long line, is searched in linear time', async () => {
  // Run in a child process (the built tools): a RegExp that backtracks blocks its thread, so only a process can be stopped.
  const root = makeProject({ 'src/long.txt': `${'a'.repeat(5_000)}!\n`, 'src/ok.txt': 'aaa\n' });
  const tools = resolve(import.meta.dirname, '../../../dist/src/agents/tools');
  const script = `
    import { universalTools } from ${JSON.stringify(`${tools}/index.js`)};
    import { createPermissions, defaultRules } from ${JSON.stringify(`${tools}/permissions.js`)};
    import { createProjectToolContext } from ${JSON.stringify(`${tools}/project-files.js`)};
    import { createStagedView } from ${JSON.stringify(`${tools}/staged-view.js`)};
    import { runTool } from ${JSON.stringify(`${tools}/wrapper.js`)};
    const root = ${JSON.stringify(root)};
    const context = createProjectToolContext({ root, view: createStagedView(root), permissions: createPermissions(root, defaultRules), plan: { summaries: new Map(), proposed: false }, signal: new AbortController().signal });
    const run = await runTool(universalTools, { id: 'c1', name: 'search', input: { query: '(a+)+$', regex: true } }, context, { kinds: ['read'], audit: () => {} });
    process.stdout.write(run.result.output);`;
  const output = await new Promise<string>((resolvePromise, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }, (error, stdout) => (error ? reject(new Error(`the search did not finish: ${error.message}`)) : resolvePromise(stdout)));
  });
  expect(output).toBe('src/ok.txt:1: aaa');
}, 30_000);

it('a pattern RE2 does not take (a backreference) is refused saying which syntax applies', async () => {
  const { call } = toolContext(makeProject({ 'a.txt': 'abab\n' }));
  const refused = await call('search', { query: '(ab)\\1', regex: true });
  expect(refused.result).toMatchObject({ isError: true, output: expect.stringMatching(/RE2 syntax.*no backreferences/) });
  expect((await call('search', { query: 'ABAB', caseSensitive: false })).result.output).toBe('a.txt:1: abab');
});
