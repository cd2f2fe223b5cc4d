// The variables that send every package manager the sandbox has (npm, pnpm, yarn 1, yarn berry, bun) to the host's registry
// through the gateway's proxy, each in the spelling it reads: berry ignores HTTP(S)_PROXY and YARN_REGISTRY.

/** `proxy`: the forwarder's proxy URL; `registry`: the host npm's registry (absent: each manager keeps its default); `caPath`: the CA bundle in the container. */
export function packageManagerEnv(input: { proxy: string; registry?: string | undefined; caPath?: string | undefined }): Record<string, string> {
  const env: Record<string, string> = {
    // yarn 2+: its own proxy settings (it reads neither HTTP_PROXY nor https_proxy), and no telemetry call to refuse.
    YARN_HTTP_PROXY: input.proxy,
    YARN_HTTPS_PROXY: input.proxy,
    YARN_ENABLE_TELEMETRY: '0',
  };
  if (input.caPath) env.YARN_HTTPS_CA_FILE_PATH = input.caPath;
  if (!input.registry) return env;
  Object.assign(env, {
    npm_config_registry: input.registry,
    YARN_REGISTRY: input.registry,
    YARN_NPM_REGISTRY_SERVER: input.registry,
    BUN_CONFIG_REGISTRY: input.registry,
  });
  return env;
}
