// The one line an interactive start shows above the prompt: which model is active, or what the offline engine does.
import type { FolderTrust } from '../app/folder-trust.js';

export async function startLine(cwd: string, env: NodeJS.ProcessEnv, trust: FolderTrust): Promise<string> {
  const [{ loadConfig }, { resolveModel }] = await Promise.all([import('../store/config.js'), import('../model/resolve.js')]);
  const loaded = await loadConfig({ cwd, env, ...(trust.trusted ? { trustedProject: trust.fingerprint } : {}) });
  const resolved = resolveModel(loaded.config.model, env);
  return resolved.provider === 'offline'
    ? 'offline engine (no model configured): analyses, generation, docs — /help'
    : `${resolved.provider} · ${resolved.model} (from ${resolved.source}) — /model switches, /help`;
}
