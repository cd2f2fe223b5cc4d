// /vm-editor: starts code-server in the container with the given extensions, published on 127.0.0.1 of the host behind a random password.
import { z } from 'zod';
import { result } from '../output.js';
import { CadreError } from '../errors.js';
import { chooseContainer, containerIdArgs } from './container-id.js';
import { defineCommand } from './types.js';

export const vmEditorCommand = defineCommand({
  name: 'vm-editor',
  summary: 'Start an editor server (code-server) in the container, on 127.0.0.1 behind a password',
  usage: '/vm-editor [container_id] [--extensions "id,id"]',
  examples: ['/vm-editor', '/vm-editor vm-3f2a --extensions "esbenp.prettier-vscode,tools/my-ext.vsix"'],
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs(),
    extensions: z.string().optional().describe('extensions, comma-separated: gallery ids (publisher.name) or .vsix files in the workspace'),
  }),
  run: async ({ extensions, ...ids }, ctx) => {
    const { parseExtensions } = await import('../container/editor/extensions.js');
    const wanted = parseExtensions(extensions);
    const id = chooseContainer('vm-editor', ids, ctx);
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.use(id, 'start an editor in');
    if (!record.state.running) throw new CadreError('vm.not-running', `${record.id} is not running (${record.state.status}).`, { remedy: `start it with /vm-restart ${record.id}` });
    const [{ startEditor }, { editorVolumeName }] = await Promise.all([import('../container/editor/start.js'), import('../container/editor/volume.js')]);
    const network = vm.actorOf(record.id)?.getSnapshot().context.network;
    const started = await startEditor({
      docker: vm.docker, containerId: record.id, dockerId: record.dockerId,
      egress: { networkIsolation: network?.isolation ?? record.networkIsolation, allowedDomains: network?.allowedDomains ?? record.allowedDomains },
      listeners: vm.editors,
      volume: editorVolumeName(vm.image),
      ensureVolume: vm.editor,
      onEvent: ctx.emit,
    }, wanted);
    // The password goes to the person only: never into the audit trail.
    ctx.runtime.audit('vm.editor.started', { containerId: record.id, url: started.url, extensions: started.extensions.map(({ extension, status }) => ({ extension, status })) });
    const lines = [
      ...(started.replaced ? [`The earlier editor server of ${record.id} was stopped; its password no longer works.`] : []),
      `Editor for ${record.id}: ${started.url}`,
      `Password: ${started.password}`,
      ...started.extensions.map((outcome) => `  ${outcome.status === 'installed' ? '✔' : '✖'} ${outcome.extension} ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}`),
      `Only this machine can reach it (127.0.0.1); it stops with /vm-cleanup ${record.id}, /vm-restart, or when cadre exits.`,
    ];
    ctx.emit(result('vm.editor', { containerId: record.id, url: started.url, password: started.password, extensions: started.extensions }, lines.join('\n')));
    const failed = started.extensions.filter((outcome) => outcome.status === 'failed');
    if (failed.length) {
      throw new CadreError('vm.editor-extensions', `The editor runs, but ${failed.map((outcome) => outcome.extension).join(', ')} could not be installed (the reasons are listed above).`, {
        remedy: `fix the cause above and run /vm-editor ${record.id} again (it restarts the editor with a new password)`,
      });
    }
  },
});
