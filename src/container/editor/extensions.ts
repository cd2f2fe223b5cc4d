// /vm-editor's extensions: gallery ids (publisher.name) through the gateway's egress, or .vsix files in the workspace (offline).
import { posix } from 'node:path';
import type Docker from 'dockerode';
import { CadreError, exitCodes } from '../../errors.js';
import type { OutputSink } from '../../output.js';
import { runEditorCli } from './server.js';

export type EditorExtension = { spec: string; source: 'gallery'; id: string } | { spec: string; source: 'vsix'; path: string };

export interface ExtensionOutcome {
  extension: string;
  source: EditorExtension['source'];
  status: 'installed' | 'failed';
  reason?: string;
}

/** code-server's gallery (Open VSX): the API host, and the storage host its downloads redirect to. */
export const galleryHosts = ['open-vsx.org', 'openvsxorg.blob.core.windows.net'] as const;

/** code-server reports an unreachable gallery as "not found". */
const unreachableGallery = 'code-server says "not found" also when the gallery cannot be reached: the container reaches it only through the gateway\'s egress proxy, whose refusals are the egress.decision records of the audit trail';

const extensionId = /^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*(@[0-9A-Za-z.+-]+)?$/i;

/** Parses `--extensions "a.b,./x.vsix"`: ids, or .vsix paths inside /workspace (relative ones from it); anything else is a usage error. */
export function parseExtensions(list: string | undefined): EditorExtension[] {
  const specs = [...new Set((list ?? '').split(',').map((spec) => spec.trim()).filter(Boolean))];
  const bad: string[] = [];
  const parsed = specs.flatMap((spec): EditorExtension[] => {
    if (spec.toLowerCase().endsWith('.vsix')) {
      const path = posix.resolve('/workspace', spec);
      if (path.startsWith('/workspace/')) return [{ spec, source: 'vsix', path }];
    } else if (extensionId.test(spec)) {
      return [{ spec, source: 'gallery', id: spec }];
    }
    bad.push(spec);
    return [];
  });
  if (bad.length) {
    throw new CadreError('vm.editor-bad-extension', `Not an extension: ${bad.join(', ')}.`, {
      remedy: 'name gallery extensions as publisher.name (e.g. esbenp.prettier-vscode), or give a .vsix file inside the workspace (e.g. tools/my-ext.vsix)',
      exitCode: exitCodes.usage,
    });
  }
  return parsed;
}

/** Why the container's egress cannot reach the gallery, or undefined when its allowlist names every gallery host. */
export function galleryRefusal(egress: { networkIsolation: boolean; allowedDomains: readonly string[] }, containerId: string): string | undefined {
  if (egress.networkIsolation) return `${containerId} has network isolation on, so the extension gallery is unreachable; use a .vsix file in the workspace instead`;
  const allowed = (host: string) => egress.allowedDomains.some((domain) => {
    const rule = domain.trim().toLowerCase();
    return rule === host || (rule.startsWith('*.') && host.endsWith(rule.slice(1)));
  });
  const missing = galleryHosts.filter((host) => !allowed(host));
  if (missing.length === 0) return undefined;
  const domains = [...new Set([...egress.allowedDomains, ...galleryHosts])].join(',');
  return `the extension gallery (${missing.join(', ')}) is not in ${containerId}'s egress allowlist: add it with /vm-config --allowed-domains "${domains}" --container ${containerId}, then /vm-restart ${containerId}; or use a .vsix file in the workspace`;
}

/** The lines of code-server's installer output that say what went wrong (not its stack traces or error objects). */
export function installFailure(output: string): string {
  const lines = output.split('\n').map((line) => line.trim());
  const cause = lines.find((line) => /\[?Error\]?:|not found/.test(line) && !/^(at|cause:)\s/.test(line))?.replace(/^\w+ \[Error\]: /, '');
  const summary = lines.find((line) => line.startsWith('Failed Installing'));
  return [...new Set([cause, summary].filter((line): line is string => Boolean(line)))].join('; ').slice(0, 400);
}

/** Installs each extension with code-server's own installer; one failing does not stop the others. */
export async function installExtensions(options: {
  docker: Docker; dockerId: string; entry: string; extensions: EditorExtension[]; galleryRefusal: string | undefined; onEvent: OutputSink;
}): Promise<ExtensionOutcome[]> {
  const outcomes: ExtensionOutcome[] = [];
  for (const extension of options.extensions) {
    if (extension.source === 'gallery' && options.galleryRefusal) {
      outcomes.push({ extension: extension.spec, source: extension.source, status: 'failed', reason: options.galleryRefusal });
      continue;
    }
    const progress = `vm-editor:${extension.spec}`;
    options.onEvent({ type: 'output.progress', id: progress, label: `Installing the editor extension ${extension.spec}` });
    const ran = await runEditorCli(options.docker, options.dockerId, options.entry, ['--install-extension', extension.source === 'vsix' ? extension.path : extension.id]);
    const output = `${ran.stdout}\n${ran.stderr}`.trim();
    const installed = ran.exitCode === 0 && !/Failed Installing|Error while installing/i.test(output);
    options.onEvent({ type: 'output.progress', id: progress, label: `${extension.spec}: ${installed ? 'installed' : 'failed'}`, done: true });
    const said = installFailure(output) || `exit code ${ran.exitCode}`;
    outcomes.push(installed
      ? { extension: extension.spec, source: extension.source, status: 'installed' }
      : { extension: extension.spec, source: extension.source, status: 'failed', reason: extension.source === 'gallery' ? `${said} (${unreachableGallery})` : said });
  }
  return outcomes;
}
