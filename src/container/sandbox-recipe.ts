// The sandbox image's recipe: Debian packages for the base, npm and yarn from the npm registry, the Dockerfile on top, and its hash.
import { createHash } from 'node:crypto';

export const sandboxRepository = 'cadre-sandbox';
export const sandboxBaseRepository = 'cadre-sandbox-base';
export const recipeLabel = 'cadre.recipe';

export const sandboxRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  /** Debian packages of the base root filesystem (with their dependencies). */
  packages: ['ca-certificates', 'git', 'nodejs', 'tini'],
  /** Packed from the npm registry the host's npm is configured with; npm and yarn 1 bundle their dependencies. */
  npmPackages: { npm: 'npm@10.9.4', yarn: 'yarn@1.22.22' },
} as const;

/** The Dockerfile that turns the imported base into the sandbox: tools, the `cadre` user (uid 1000), /workspace. */
export function sandboxDockerfile(base: string, hash: string, version: string): string {
  return `FROM ${base}
ADD npm.tgz /opt/cadre-npm/
ADD yarn.tgz /opt/cadre-yarn/
RUN mkdir -p /usr/lib/node_modules \\
 && mv /opt/cadre-npm/package /usr/lib/node_modules/npm \\
 && mv /opt/cadre-yarn/package /usr/lib/node_modules/yarn \\
 && rmdir /opt/cadre-npm /opt/cadre-yarn \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx \\
 && ln -s ../lib/node_modules/yarn/bin/yarn.js /usr/bin/yarn \\
 && groupadd --gid 1000 cadre \\
 && useradd --uid 1000 --gid 1000 --home-dir /home/cadre --create-home --shell /bin/bash cadre \\
 && mkdir -p /workspace && chown cadre:cadre /workspace \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# The root filesystem is read-only at run time: caches and HOME live in the tmpfs /tmp.
ENV HOME=/tmp npm_config_cache=/tmp/npm-cache YARN_CACHE_FOLDER=/tmp/yarn-cache npm_config_update_notifier=false
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
