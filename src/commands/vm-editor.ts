// /vm-editor: starts an editor server in the container, or says plainly why it cannot (nothing half-started).
import { z } from 'zod';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

export const vmEditorCommand = defineCommand({
  name: 'vm-editor',
  summary: 'Start an editor server in the container with the given extensions',
  usage: '/vm-editor [--extensions "id,id"] [--container <id>]',
  args: z.object({
    extensions: z.string().optional().describe('editor extension ids, comma-separated'),
    container: z.string().optional().describe('the container (default: the last created)'),
  }),
  run: async ({ extensions, container }, ctx) => {
    const id = container ?? ctx.runtime.session.view().currentContainer;
    if (!id) throw new CadreError('vm.no-container', 'There is no container to start an editor in.', { remedy: 'create one with /vm-create <repo_url>' });
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.record(id);
    if (!record.state.running) throw new CadreError('vm.not-running', `${record.id} is not running (${record.state.status}).`, { remedy: `start it with /vm-restart ${record.id}` });
    const { editorRefusal, findEditorServer } = await import('../cli/vm-editor.js');
    const found = await findEditorServer(vm.docker, record.dockerId);
    const wanted = (extensions ?? '').split(',').map((extension) => extension.trim()).filter(Boolean);
    ctx.runtime.audit('vm.editor', { containerId: record.id, extensions: wanted, editorServer: found.path ?? null, started: false });
    throw editorRefusal(record.id, found, wanted);
  },
});
