// /vm-create: creates an isolated container from a repository.
import { z } from 'zod';
import { result } from '../output.js';
import { defineCommand } from './types.js';

export const vmCreateCommand = defineCommand({
  name: 'vm-create',
  summary: 'Clone a repository into a new isolated container',
  usage: '/vm-create <repo_url | ssh_url | path> [--config "memory: 4GB\\ncpu: 2 cores\\ntimeout: 30 minutes"]',
  positionals: ['repoUrl'],
  args: z.object({
    repoUrl: z.string().min(1).describe('the repository to clone: an https URL, an SSH URL (git@host:owner/repo.git, cloned with your ssh agent or keys on this machine), or a local checkout (. for the project cadre runs in: its committed state is cloned, the checkout is never mounted or changed)'),
    config: z.string().optional().describe('lines of "memory: <size>", "cpu: <n> cores", "timeout: <n> minutes"'),
  }),
  run: async ({ repoUrl, config }, ctx) => {
    const vm = await ctx.runtime.vm.engine();
    // A typed "\n" separates config lines as a real line break does.
    const created = await vm.create({ repoUrl, cwd: ctx.cwd, ...(config !== undefined ? { configText: config.replace(/\\n/g, '\n') } : {}) });
    const { formatSize } = await import('../container/limits.js');
    const { settings, suggestion } = created;
    const services = settings.services ?? [];
    const missing = suggestion.services.filter((service) => !services.includes(service));
    const { mongoRemedy, unsupportedServices } = await import('../container/services/catalog.js');
    const notes = [
      ...(created.repoUrl.startsWith('/') ? [`  Cloned the committed state of ${created.repoUrl} (uncommitted changes are not in it); that checkout is never mounted or changed; /vm-create-pr ${created.id} "<title>" brings the work back as a new branch of it.`] : []),
      ...(services.length ? [`  Services: ${services.map((s) => `${s} (reachable as ${s})`).join(', ')}; their connection variables are set in the container.`] : []),
      ...(missing.length ? [`  This repository looks like it needs ${missing.join(', ')} (${suggestion.evidence.join('; ')}): nothing was started. To run it beside the next container: /vm-config --services "${[...services, ...missing].join(',')}", then /vm-create ${repoUrl}.`] : []),
      ...(suggestion.unsupported.length ? [`  It also uses MongoDB: ${unsupportedServices.mongodb}. What to do: ${mongoRemedy}.`] : []),
    ];
    ctx.emit(result('vm.created', { containerId: created.id, repoUrl: created.repoUrl, deadline: new Date(created.deadline).toISOString(), memoryBytes: settings.memoryBytes, cpus: settings.cpus, timeoutMinutes: settings.timeoutMinutes, services, suggestion },
      [`✔ Container ${created.id} is running (memory ${formatSize(settings.memoryBytes)}, cpu ${settings.cpus}, times out at ${new Date(created.deadline).toLocaleTimeString()}).`,
        ...notes,
        `  Next: /vm-install-deps --auto-detect, /agent vm-agent "<task>", /vm-status ${created.id}`].join('\n')));
  },
});
