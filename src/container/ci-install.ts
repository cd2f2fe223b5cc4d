// The package manager a project's own CI installs its dependencies with (`npm ci`, `yarn --immutable`, `pnpm install` in a workflow's run steps).
import { parseWorkflow, readWorkflowTexts, runsTests } from './ci-env.js';

export type CiManager = 'npm' | 'pnpm' | 'yarn';

/** What a workflow runs to install: the manager, the command as written (first line of it) and the file. */
export interface CiInstall { manager: CiManager; command: string; file: string }

/**
 * One shell command that installs the project's dependencies: `npm ci`, `npm install`/`npm i` (not `-g`, not with package names),
 * `yarn`, `yarn install`, `yarn --frozen-lockfile`, `pnpm install`/`pnpm i`. Installing a tool globally (`npm install -g corepack`) is not one.
 */
const installPattern = /^(?:npm (?:ci|install|i)|yarn(?: install)?|pnpm (?:install|i))(?: --?[\w-]+(?:=[\w.:/@-]+)?)*$/;
const isInstall = (command: string): boolean => command.length <= 120 && installPattern.test(command) && !/\s(?:-g|--global|--location=global)\b/.test(command);

function installOfStep(step: unknown): CiInstall | undefined {
  if (typeof step !== 'object' || step === null || typeof (step as { run?: unknown }).run !== 'string') return undefined;
  const commands = ((step as { run: string }).run).split(/\n|&&|;|\|\|/).map((part) => part.trim().replace(/\s+/g, ' ')).filter(Boolean);
  const command = commands.find(isInstall);
  return command ? { manager: command.split(' ', 1)[0] as CiManager, command, file: '' } : undefined;
}

/**
 * The install the project's CI runs: the first in a job that also runs the tests, else the first in any job; undefined when the
 * workflows run none (they may install through an action or a script cadre does not follow).
 */
export async function readCiInstall(workspaceDir: string): Promise<CiInstall | undefined> {
  let anyJob: CiInstall | undefined;
  for (const { file, text } of await readWorkflowTexts(workspaceDir)) {
    const doc = parseWorkflow(text);
    for (const job of Object.values(doc?.jobs ?? {})) {
      const steps: unknown[] = typeof job === 'object' && job !== null && Array.isArray((job as { steps?: unknown }).steps) ? (job as { steps: unknown[] }).steps : [];
      const found = steps.map(installOfStep).find((install) => install !== undefined);
      if (!found) continue;
      if (steps.some(runsTests)) return { ...found, file };
      anyJob ??= { ...found, file };
    }
  }
  return anyJob;
}
