// Ctrl-C during /analyze-project at the prompt stops the indexing for real: no more progress, no cache written.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';

const nodeModules = resolve(import.meta.dirname, '../../node_modules');
/** Real code, many files: the SDKs and linters cadre itself depends on. */
const packages = ['@ai-sdk', 'ai', 'openai', 'zod', '@typescript-eslint', 'eslint'];

/** Copies the script files of `packages` (build folders renamed so that the indexer reads them); returns how many. */
function copyRealCode(into: string): number {
  let count = 0;
  const copy = (from: string, to: string): void => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const source = join(from, entry.name);
      if (entry.isDirectory()) copy(source, join(to, ['dist', 'build', 'out'].includes(entry.name) ? `${entry.name}_` : entry.name));
      else if (entry.isFile() && /\.[cm]?[jt]s$/.test(entry.name) && statSync(source).size < 1_000_000) {
        mkdirSync(to, { recursive: true });
        cpSync(source, join(to, entry.name));
        count += 1;
      }
    }
  };
  for (const name of packages) copy(join(nodeModules, name), join(into, 'packages', name));
  return count;
}

const sessions: PtySession[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('Ctrl-C during /analyze-project', () => {
  it('returns the prompt, prints no more progress, and leaves no context cache', async () => {
    const { project, home } = await tempProject();
    folders.push(dirname(project));
    expect(copyRealCode(project)).toBeGreaterThan(2500);
    const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
    });
    sessions.push(pty);
    let at = await pty.waitFor('cadre ›');
    pty.type(`/analyze-project${keys.enter}`);
    at = await pty.waitFor(/Indexing the project .*\d+%/, { from: at });
    pty.type(keys.ctrlC);
    // Longer than the whole indexing takes on this tree: work that went on would have printed and written the cache by now.
    await new Promise((resolveWait) => setTimeout(resolveWait, 6000));
    expect(existsSync(join(project, '.cadre', 'context.json'))).toBe(false);
    const afterInterrupt = pty.screen().slice(at);
    expect(afterInterrupt).toContain('Interrupted');
    expect(afterInterrupt.slice(afterInterrupt.indexOf('Interrupted'))).not.toMatch(/Indexing the project|Indexed \d+ files/);
    pty.type(keys.ctrlD);
    expect(await pty.exited).not.toBeNull();
    expect(existsSync(join(project, '.cadre', 'context.json'))).toBe(false);
    expect(readdirSync(join(project, '.cadre')).filter((name) => name.includes('context'))).toEqual([]);
  }, 60_000);
});
