// The runner's model: chosen from its environment (the gateway's address and the session JWT as the API key).
import { CadreError } from '../errors.js';
import { createModelClient, type ModelClientOptions } from '../model/client.js';
import { resolveModel, type ModelEnv } from '../model/resolve.js';
import type { ModelClient } from '../model/types.js';
import { gatewayFetch } from './socket-fetch.js';

/**
 * Resolves the model as cadre does on the host (CADRE_MODEL=`provider:model`, ANTHROPIC_* or OPENAI_* variables).
 * ANTHROPIC_BASE_URL follows the official SDK's convention (the origin, no `/v1`), which the AI SDK needs appended.
 * With CADRE_GATEWAY_SOCKET set, requests go straight to the gateway's socket; the base URL then gives only the path.
 */
export function runnerModel(env: ModelEnv, options: ModelClientOptions = {}): ModelClient {
  const resolved = resolveModel({}, env);
  if (resolved.provider === 'offline') {
    throw new CadreError('runner.no-model', 'The runner was started without a model: no API key or base URL in its environment.', {
      remedy: 'The host passes ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL or OPENAI_API_KEY/OPENAI_BASE_URL (the session JWT and the gateway) and CADRE_MODEL.',
    });
  }
  if (resolved.provider === 'anthropic' && resolved.baseUrl && !/\/v1\/?$/.test(resolved.baseUrl)) {
    resolved.baseUrl = `${resolved.baseUrl.replace(/\/$/, '')}/v1`;
  }
  return createModelClient(resolved, { fetch: gatewayFetch(env), ...options });
}
