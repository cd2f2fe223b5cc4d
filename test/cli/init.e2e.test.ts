// /init in cadre -c on a real project: a plan that waits for approval, applied with /auto, refused where AGENTS.md exists; no model needed.
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { runCli } from '../support/cli.js';
import { unpackCorpus, type UnpackedProject } from '../support/corpus.js';

let unpacked: UnpackedProject | undefined;
let home: string | undefined;
afterEach(async () => {
  unpacked?.dispose();
  if (home) await rm(home, { recursive: true, force: true });
});

it('drafts AGENTS.md offline as a plan: -c stops at approval, /auto applies it, a second /init is refused', { timeout: 60_000 }, async () => {
  unpacked = unpackCorpus('koa-typescript-rest');
  home = await mkdtemp(join(tmpdir(), 'cadre-init-home-'));
  const cwd = unpacked.root;
  const asked = await runCli(['-c', '/init'], { cwd, home });
  expect(asked.code).toBe(1);
  expect(asked.stdout).toMatch(/add-docs\s+AGENTS\.md/);
  expect(asked.stderr).toContain('This plan waits for approval');
  expect(existsSync(join(cwd, 'AGENTS.md'))).toBe(false);

  const applied = await runCli(['-c', '/auto on', '-c', '/init'], { cwd, home });
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain('Drafted "Write a starting AGENTS.md" offline, from the project analysis (1 step(s)).');
  const written = readFileSync(join(cwd, 'AGENTS.md'), 'utf8');
  expect(written).toContain('- Test: `npm test` (runs `jest`)');
  expect(written).toMatch(/- Lint: `npm run lint` \(runs `tsc --noEmit && eslint/);
  expect(written).toContain('- Languages: TypeScript');

  const again = await runCli(['-c', '/init'], { cwd, home });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('This project already has an AGENTS.md');
  expect(readFileSync(join(cwd, 'AGENTS.md'), 'utf8')).toBe(written);
});
