// The sandbox backend for a Docker engine, chosen by how the engine is reached. A local engine shares cadre's files: the
// runner bundle, the host's extra CA bundle and the editor volume are mounted read-only (the files from a folder whose path
// names neither this install nor the cadre home), and each sandbox's gateway folder is bound in. A remote engine shares none:
// workspaces are volumes there, and the runner and the CA are baked into the image's layer (runner-image.ts).
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import { containerCaPath } from '../../gateway/pool.js';
import type { Installation } from '../../store/installation.js';
import type { SandboxBackend } from '../backend.js';
import { editorVolumeBind } from '../editor/volume.js';
import { neutralCopy } from '../neutral-folder.js';
import { runnerBundleBind, runnerBundleDir } from '../runner-bundle.js';
import { createLocalDockerBackend } from './local-docker.js';
import { createRemoteDockerBackend } from './remote-docker.js';

export interface DockerBackendOptions {
  docker: Docker;
  /** The engine is reached over tcp or ssh: it shares no files with this process. */
  remote: boolean;
  workspacesDir: string;
  runDir: string;
  installation: Installation;
  image: string;
  onEvent: OutputSink;
  /** The folder whose copies are mounted (neutral-folder.ts). */
  neutral: string;
  /** The host's extra CA bundle, if it has one. */
  caBundle: string | undefined;
  /** The gateway's folder bound into sandbox `id` (local engines only). */
  bindsFor: (id: string) => string[];
}

export async function createDockerBackend(options: DockerBackendOptions): Promise<SandboxBackend> {
  const { docker, workspacesDir, runDir, installation, image, onEvent, neutral, caBundle } = options;
  const editor = editorVolumeBind(image);
  if (options.remote) return createRemoteDockerBackend({ docker, workspacesDir, installation, image: () => image, onEvent, volumes: [editor] });
  const caBinds = caBundle ? [`${await neutralCopy(caBundle, neutral, 'host-ca')}:${containerCaPath}:ro`] : [];
  return createLocalDockerBackend({
    docker, workspacesDir, runDir, installation, onEvent,
    binds: [runnerBundleBind(await neutralCopy(runnerBundleDir(), neutral, 'runner')), editor, ...caBinds],
    bindsFor: options.bindsFor,
  });
}
