// Where cadre keeps its files: the project's .cadre folder and the user's config and data folders.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface CadrePaths {
  projectDir: string;
  /** `<project>/.cadre`: context cache, sessions, prompt history, project config. */
  projectCadreDir: string;
  projectConfigFile: string;
  sessionsDir: string;
  contextFile: string;
  historyFile: string;
  /** `$XDG_CONFIG_HOME/cadre/config.json`, or `$CADRE_HOME/config.json`. */
  userConfigFile: string;
  /** `$XDG_DATA_HOME/cadre`, or `$CADRE_HOME`. */
  dataDir: string;
  auditDir: string;
  /** Host-only keys; created mode 0700. */
  keysDir: string;
  workspacesDir: string;
}

type Env = Record<string, string | undefined>;

/**
 * Resolves every path cadre uses. `CADRE_HOME` replaces both the user config root and
 * the data folder (tests point it at a temporary folder); otherwise the XDG variables
 * apply, falling back to `~/.config` and `~/.local/share`.
 */
export function resolvePaths({ cwd, env }: { cwd: string; env: Env }): CadrePaths {
  const projectDir = resolve(cwd);
  const projectCadreDir = join(projectDir, '.cadre');
  const home = nonEmpty(env.HOME) ?? homedir();
  const cadreHome = nonEmpty(env.CADRE_HOME);
  const configRoot = cadreHome ?? join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config'), 'cadre');
  const dataDir = cadreHome ?? join(nonEmpty(env.XDG_DATA_HOME) ?? join(home, '.local', 'share'), 'cadre');
  return {
    projectDir,
    projectCadreDir,
    projectConfigFile: join(projectCadreDir, 'config.json'),
    sessionsDir: join(projectCadreDir, 'sessions'),
    contextFile: join(projectCadreDir, 'context.json'),
    historyFile: join(projectCadreDir, 'history'),
    userConfigFile: join(configRoot, 'config.json'),
    dataDir,
    auditDir: join(dataDir, 'audit'),
    keysDir: join(dataDir, 'keys'),
    workspacesDir: join(dataDir, 'workspaces'),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : resolve(value);
}
