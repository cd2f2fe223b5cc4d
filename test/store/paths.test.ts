// resolvePaths: project paths, XDG folders, CADRE_HOME; writeFileAtomic leaves no temp files and sets the mode.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/store/atomic-write.js';
import { resolvePaths } from '../../src/store/paths.js';
import { tempDir } from './temp.js';

describe('resolvePaths', () => {
  it('uses XDG folders, falling back to ~/.config and ~/.local/share', () => {
    const xdg = resolvePaths({ cwd: '/p', env: { HOME: '/h', XDG_CONFIG_HOME: '/c', XDG_DATA_HOME: '/d' } });
    expect(xdg.userConfigFile).toBe('/c/cadre/config.json');
    expect(xdg.auditDir).toBe('/d/cadre/audit');
    const plain = resolvePaths({ cwd: '/p', env: { HOME: '/h' } });
    expect(plain.userConfigFile).toBe('/h/.config/cadre/config.json');
    expect(plain.keysDir).toBe('/h/.local/share/cadre/keys');
    expect(plain.sessionsDir).toBe('/p/.cadre/sessions');
    expect(plain.historyFile).toBe('/p/.cadre/history');
    expect(plain.contextFile).toBe('/p/.cadre/context.json');
  });

  it('lets CADRE_HOME replace both the config root and the data folder', () => {
    const paths = resolvePaths({ cwd: '/p', env: { HOME: '/h', XDG_DATA_HOME: '/d', CADRE_HOME: '/t' } });
    expect(paths.userConfigFile).toBe('/t/config.json');
    expect(paths.dataDir).toBe('/t');
    expect(paths.workspacesDir).toBe('/t/workspaces');
  });
});

describe('writeFileAtomic', () => {
  it('creates the folder, replaces the file whole and leaves no temporary file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'nested', 'out.json');
    await writeFileAtomic(file, 'first');
    await writeFileAtomic(file, 'second', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('second');
    expect(await readdir(join(dir, 'nested'))).toEqual(['out.json']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
