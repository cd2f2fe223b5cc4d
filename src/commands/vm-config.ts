// /vm-config: sets container defaults, or one container's settings.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { result } from '../output.js';
import { applySettingsChange, configValues, describeSettings, settingFlagsShape } from '../container/settings.js';
import { containerIdArgs, givenContainer } from './container-id.js';
import { defineCommand } from './types.js';

/** Writes `vm` values into the user's config file; returns its path. */
async function saveDefaults(cwd: string, vm: Record<string, unknown>): Promise<string> {
  const [{ resolvePaths }, { saveUserConfigValues }] = await Promise.all([import('../store/paths.js'), import('../store/config-save.js')]);
  const file = resolvePaths({ cwd, env: process.env }).userConfigFile;
  await saveUserConfigValues(file, { vm });
  return file;
}

export const vmConfigCommand = defineCommand({
  name: 'vm-config',
  summary: 'Set memory, CPU, timeout, env and network rules: of one container, or the defaults for new ones (this session; --save keeps them)',
  usage: '/vm-config [container_id] [--memory 4GB] [--cpu 2] [--timeout 30] [--env "A=1,B=2"] [--services "postgres,redis"] [--network-isolation] [--allowed-domains "a.com,b.org"] [--warm-pool N] [--save]',
  examples: ['/vm-config --memory 4GB --cpu 2', '/vm-config --services postgres --save', '/vm-config vm-3f2a --memory 8GB'],
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs('without it: the defaults for new containers'),
    ...settingFlagsShape,
    warmPool: z.string().optional().describe('containers kept started ahead of /vm-create, 0 to 8 (0: none); with --save, vm.warmPool in your config'),
    save: z.boolean().optional().describe('keep the defaults given with it for later sessions too, in your user config (vm.*); without it they last for this session only'),
  }),
  run: async ({ containerId, container: containerFlag, warmPool, save, ...change }, ctx) => {
    const container = givenContainer('vm-config', { containerId, container: containerFlag });
    const changing = Object.values(change).some((value) => value !== undefined);
    if (save && container) {
      throw new CadreError('vm.config-usage', `--save keeps defaults for new containers; ${container}'s own settings already stay with it.`, { remedy: `/vm-config ${container} <settings> (no --save) changes it; /vm-config <settings> --save changes your defaults`, exitCode: exitCodes.usage });
    }
    if (save && !changing && warmPool === undefined) {
      throw new CadreError('vm.config-usage', '--save keeps the settings given with it, and none were given.', { remedy: 'name them: /vm-config --memory 4GB --services postgres --save', exitCode: exitCodes.usage });
    }
    if (warmPool !== undefined) {
      if (container) throw new CadreError('vm.config-usage', '--warm-pool sets how many spares this cadre keeps; it is not a setting of one container.', { remedy: '/vm-config --warm-pool 2 (without a container id)', exitCode: exitCodes.usage });
      if (!/^[0-8]$/.test(warmPool.trim())) throw new CadreError('vm.config-usage', `--warm-pool takes a whole number from 0 to 8, not "${warmPool}".`, { remedy: '/vm-config --warm-pool 2 keeps two containers started; 0 keeps none', exitCode: exitCodes.usage });
      const size = Number(warmPool.trim());
      ctx.runtime.vm.setWarmPool(size);
      const savedIn = save ? await saveDefaults(ctx.cwd, { warmPool: size }) : undefined;
      ctx.runtime.audit('vm.config', { scope: 'warm-pool', size, saved: savedIn !== undefined });
      ctx.emit(result('vm.config', { scope: 'warm-pool', warmPool: size, saved: savedIn !== undefined, ...(savedIn ? { savedIn } : {}) }, `${size === 0
        ? 'Warm pool: none (spares nobody took are removed).'
        : `Warm pool: ${size} container${size === 1 ? '' : 's'} kept started with the defaults for new containers, filled in the background; /vm-create takes one when its settings fit and no services are asked. /vm-status shows how many are ready.`} ${savedIn ? `Saved as your default in ${savedIn}.` : 'For this session only (add --save to keep it).'}`));
      if (!changing) return;
    }
    if (!container) {
      const { settings, changed } = applySettingsChange(ctx.runtime.vm.defaults(), change);
      ctx.runtime.vm.setDefaults(settings);
      // With --save the change outlives the process (the next `cadre -c` or prompt uses it): it goes into the user's own config file.
      const savedIn = save && changed.length ? await saveDefaults(ctx.cwd, configValues(settings, changed)) : undefined;
      if (changed.length) ctx.runtime.audit('vm.config', { scope: 'defaults', changed, saved: savedIn !== undefined });
      const where = savedIn
        ? `Saved as your default in ${savedIn}: later sessions use it too.`
        : changed.length ? 'For this session only: later sessions start from your saved defaults (add --save to keep this change).' : undefined;
      ctx.emit(result('vm.config', { scope: 'defaults', settings, changed, saved: savedIn !== undefined, ...(savedIn ? { savedIn } : {}) },
        `${changed.length ? 'New containers get' : 'Defaults for new containers'}: ${describeSettings(settings)}${where ? `\n${where}` : ''}`));
      return;
    }
    const vm = await ctx.runtime.vm.engine();
    const { record, settings, changed, deadline, stopped } = await vm.configure(container, change);
    // A task running (or queued) in it ends at the new deadline, sooner or later.
    if (changed.includes('timeoutMinutes')) ctx.runtime.vmTasks.moveDeadline(record.id, deadline);
    const notes: string[] = [];
    if (changed.includes('memoryBytes') || changed.includes('cpus') || changed.includes('pids')) notes.push('memory, cpu and pids: applied now');
    if (changed.includes('timeoutMinutes')) notes.push(`timeout: the deadline is now ${new Date(deadline).toLocaleTimeString()}${stopped ? `; /vm-restart ${record.id} starts it again` : ''}`);
    if (changed.includes('env')) notes.push('env: applies to every command and task started from now on');
    if (changed.includes('networkIsolation') || changed.includes('allowedDomains')) notes.push('network rules: applied now (the gateway reopened with them; calls in flight finish)');
    if (changed.length) ctx.runtime.audit('vm.config', { scope: record.id, changed });
    ctx.emit(result('vm.config', { scope: record.id, settings, changed, restartNeeded: false },
      [`${record.id}: ${describeSettings(settings)}`, ...notes.map((note) => `  ${note}`)].join('\n')));
  },
});
