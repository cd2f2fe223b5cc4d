// The environment a sandbox container gets for the gateway: the JWT as the provider key, base URLs and proxies on the forwarder.
import type { ProviderKind } from './providers.js';

export const defaultForwarderPorts = { modelPort: 4100, proxyPort: 4101 } as const;

/** The prefix of the gateway's MCP routes (origin-form, on the model port like model calls). */
export const mcpRoutePrefix = '/cadre/mcp/';

const loopbackNames = '127.0.0.1,localhost,::1';

/**
 * Variables that point the official SDKs, git, npm and yarn at the in-container forwarder in
 * their ordinary way. The only credential is the container's JWT; a real key never appears.
 * The model base URL uses the 127.0.0.1 literal, which NO_PROXY exempts, so SDK calls are not
 * sent to the egress proxy; the container's own loopback names are exempt too (a project's test
 * servers listen there), and every other name goes through the proxy.
 */
export function containerGatewayEnv(input: {
  provider: ProviderKind;
  token: string;
  modelPort?: number;
  proxyPort?: number;
}): Record<string, string> {
  const modelOrigin = `http://127.0.0.1:${input.modelPort ?? defaultForwarderPorts.modelPort}`;
  const proxy = `http://127.0.0.1:${input.proxyPort ?? defaultForwarderPorts.proxyPort}`;
  const model: Record<string, string> = input.provider === 'anthropic'
    ? { ANTHROPIC_API_KEY: input.token, ANTHROPIC_BASE_URL: modelOrigin }
    : { OPENAI_API_KEY: input.token, OPENAI_BASE_URL: `${modelOrigin}/v1` };
  return {
    ...model,
    // curl (hence git) reads only the lower-case http_proxy; npm and yarn read either.
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    NO_PROXY: loopbackNames,
    no_proxy: loopbackNames,
  };
}

/** Where the runner finds the host's MCP tools offered to containers: the gateway's MCP routes, through the forwarder. */
export function containerMcpEnv(modelPort: number = defaultForwarderPorts.modelPort): Record<string, string> {
  return { CADRE_MCP_URL: `http://127.0.0.1:${modelPort}${mcpRoutePrefix.slice(0, -1)}` };
}
