// The one line an interactive start shows above the prompt: which model is active, or what the offline engine does; and
// whether the app must start at once rather than at the first key (the vm side has work from the start).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FolderTrust } from '../app/folder-trust.js';
import { resolvePaths } from '../store/paths.js';

const holdsAnything = (dir: string): Promise<boolean> => readdir(dir).then((entries) => entries.length > 0, () => false);

export async function startLine(cwd: string, env: NodeJS.ProcessEnv, trust: FolderTrust): Promise<{ text: string; startNow: boolean }> {
  const [{ loadConfig }, { resolveModel }] = await Promise.all([import('../store/config.js'), import('../model/resolve.js')]);
  const loaded = await loadConfig({ cwd, env, ...(trust.trusted ? { trustedProject: trust.fingerprint } : {}) });
  const resolved = resolveModel(loaded.config.model, env);
  const text = resolved.provider === 'offline'
    ? 'offline engine (no model configured): analyses, generation, docs — /help'
    : `${resolved.provider} · ${resolved.model} (from ${resolved.source}) — /model switches, /help`;
  // A warm pool fills from the start; containers (each has a workspace folder) or gateways (a run folder) of earlier
  // sessions are swept at the start (those past their deadline stopped).
  const paths = resolvePaths({ cwd, env });
  const startNow = loaded.config.vm.warmPool > 0 || (await holdsAnything(paths.workspacesDir)) || (await holdsAnything(join(paths.dataDir, 'run')));
  return { text, startNow };
}
