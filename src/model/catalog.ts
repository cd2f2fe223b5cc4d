// The models a provider serves (its model list endpoint), with the context window each declares, for /model and the context budget.
import { CadreError } from '../errors.js';
import type { ResolvedModel } from './resolve.js';
import { windowFromModelEntry } from './context-window.js';

export interface ModelEntry {
  id: string;
  contextWindow?: number;
}

const defaultBaseUrls = { anthropic: 'https://api.anthropic.com/v1', openai: 'https://api.openai.com/v1' } as const;

function listUrl(resolved: ResolvedModel): string | undefined {
  const base = resolved.baseUrl ?? (resolved.provider === 'openai-compatible' ? undefined : defaultBaseUrls[resolved.provider]);
  return base ? `${base.replace(/\/+$/, '')}/models` : undefined;
}

function headersOf(resolved: ResolvedModel): Record<string, string> {
  if (!resolved.apiKey) return {};
  if (resolved.provider === 'anthropic') return { 'x-api-key': resolved.apiKey, 'anthropic-version': '2023-06-01' };
  return { authorization: `Bearer ${resolved.apiKey}` };
}

/**
 * Lists the provider's models (one page; Anthropic's first 1000). Resolves null when the provider has no list
 * (a 404, a server that is not there, no answer within 3 s): callers then go on without it. Never shows the key.
 */
export async function listModels(resolved: ResolvedModel, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ModelEntry[] | null> {
  const url = listUrl(resolved);
  if (!url) return null;
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs ?? 3_000), ...(options.signal ? [options.signal] : [])]);
  let response: Response;
  try {
    response = await fetch(resolved.provider === 'anthropic' ? `${url}?limit=1000` : url, { headers: headersOf(resolved), signal });
  } catch {
    return null;
  }
  if (response.status === 401 || response.status === 403) {
    throw new CadreError('model.auth', `${resolved.provider} rejected the API key when listing models (${response.status}).`, {
      remedy: 'Check the key with `cadre config`; the session is intact.',
    });
  }
  if (!response.ok) return null;
  const body = (await response.json().catch(() => null)) as { data?: unknown } | null;
  if (!body || !Array.isArray(body.data)) return null;
  return body.data.flatMap((raw): ModelEntry[] => {
    if (raw === null || typeof raw !== 'object' || typeof (raw as { id?: unknown }).id !== 'string') return [];
    const entry = raw as Record<string, unknown> & { id: string };
    const contextWindow = windowFromModelEntry(entry);
    return [{ id: entry.id, ...(contextWindow ? { contextWindow } : {}) }];
  });
}
