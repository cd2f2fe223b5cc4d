// The one schema of container settings: its defaults behind the config's vm.* keys, /vm-config's flags, saved records read
// back (old ones and hostile ones) and the conversions to the container machine's and the engine's units.
import { describe, expect, it } from 'vitest';
import {
  applySettingsChange, configValues, defaultSettings, parseCreateConfig, engineResources, limitsOfMachine, machineLimits,
  readSavedSettings, settingsFromConfig, type ContainerSettings,
} from '../../src/container/settings.js';
import { configSchema } from '../../src/store/config-schema.js';

const gib = 1024 ** 3;
const mib = 1024 ** 2;

describe('container settings', () => {
  it('has one set of defaults, and the config without a vm key gives exactly those', () => {
    expect(defaultSettings).toEqual({ memoryBytes: 2 * gib, cpus: 2, pids: 512, diskBytes: 4 * gib, timeoutMinutes: 30, env: {}, networkIsolation: false, allowedDomains: [], services: [] });
    expect(settingsFromConfig(configSchema.parse({}).vm)).toEqual(defaultSettings);
    expect(configSchema.parse({}).vm).toMatchObject({ memory: '2GB', cpu: 2, pids: 512, disk: '4GB', timeoutMinutes: 30 });
  });

  it('saves every setting /vm-config accepts into a config that reads back as the same settings', () => {
    const { settings, changed } = applySettingsChange(defaultSettings, {
      memory: '1.5 GB', cpu: '1.5', pids: '256', disk: '8GB', timeout: '45 minutes', env: 'NODE_ENV=test', networkIsolation: true, allowedDomains: 'Example.org, *.npmjs.org', services: 'pg,redis',
    });
    expect(changed).toEqual(['memoryBytes', 'cpus', 'pids', 'diskBytes', 'timeoutMinutes', 'env', 'allowedDomains', 'services', 'networkIsolation']);
    const saved = configValues(settings, changed);
    expect(saved).toEqual({ memory: '1.5GB', cpu: 1.5, pids: 256, disk: '8GB', timeoutMinutes: 45, env: { NODE_ENV: 'test' }, networkIsolation: true, allowedDomains: ['example.org', '*.npmjs.org'], services: ['postgres', 'redis'] });
    // A fraction of a core was accepted by /vm-config but refused by the config's schema (an int), so --save failed blaming the file.
    expect(settingsFromConfig(configSchema.parse({ vm: JSON.parse(JSON.stringify(saved)) as unknown }).vm)).toEqual(settings);
  });

  it('names a config value it cannot read, with how to write it', () => {
    const checked = configSchema.safeParse({ vm: { memory: '4 gigs', cpu: 0, services: ['mongodb'] } });
    expect(checked.success).toBe(false);
    const issues = checked.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
    expect(issues).toEqual([
      expect.stringMatching(/^vm\.memory: memory "4 gigs" is not a size with a unit: write it like 4GB or 512MB$/),
      'vm.cpu: below 0.01 cores',
      'vm.services.0: one of postgres, mysql, redis',
    ]);
    expect(configSchema.safeParse({ vm: { memory: '32MB' } }).error?.issues[0]?.message).toMatch(/below the 64MB minimum/);
  });

  it('applies /vm-config flags over the current settings: env adds to what is set, a bad value is refused by name', () => {
    const base: ContainerSettings = { ...defaultSettings, env: { A: '1' } };
    expect(applySettingsChange(base, { env: 'B=2' }).settings.env).toEqual({ A: '1', B: '2' });
    expect(base.env).toEqual({ A: '1' });
    expect(applySettingsChange(base, {})).toEqual({ settings: base, changed: [] });
    expect(() => applySettingsChange(base, { memory: '4 gigs' })).toThrow(expect.objectContaining({ code: 'invalid-limit', message: 'memory "4 gigs" is not a size with a unit' }));
    expect(() => applySettingsChange(base, { services: 'cassandra' })).toThrow(expect.objectContaining({ code: 'vm.unknown-service' }));
  });

  it("reads /vm-create's --config text over the defaults, each value as its flag reads it", () => {
    const settings = parseCreateConfig('memory: 4GB\ncpu: 2 cores\ntimeout: 60 minutes; disk: 8GB\n# a comment\npids: 256\nservices: pg', defaultSettings, 4);
    expect(settings).toEqual({ ...defaultSettings, memoryBytes: 4 * gib, cpus: 2, timeoutMinutes: 60, diskBytes: 8 * gib, pids: 256, services: ['postgres'] });
    expect(parseCreateConfig('cpus: 3', defaultSettings, 4).cpus).toBe(3);
    expect(() => parseCreateConfig('cpu: 8', defaultSettings, 4)).toThrow(/more than this host's 4 cores/);
    expect(() => parseCreateConfig('swap: 1GB', defaultSettings)).toThrow(/config key "swap" is unknown/);
    expect(() => parseCreateConfig('memory 4GB', defaultSettings)).toThrow(/line 1 "memory 4GB" is not "key: value"/);
  });

  describe('saved records (container.json beside the workspace)', () => {
    const fallback: ContainerSettings = { ...defaultSettings, memoryBytes: 768 * mib, allowedDomains: ['from-the-label.org'] };

    it('reads a record saved before services existed, the missing setting taken from the fallback without a note', () => {
      const old = { memoryBytes: gib, cpus: 1, timeoutMinutes: 20, env: { CI: '1' }, networkIsolation: true, allowedDomains: [] };
      expect(readSavedSettings(old, fallback)).toEqual({ settings: { ...fallback, ...old }, problems: [] });
      expect(readSavedSettings(undefined, fallback)).toEqual({ settings: fallback, problems: [] });
    });

    it('names each setting a hostile record gets wrong and keeps the fallback for it, the readable ones kept', () => {
      const hostile = { memoryBytes: 'lots', cpus: 1e6, env: { '1BAD': 'x', 'LD_PRELOAD=': 'y' }, allowedDomains: 'evil.example', services: ['postgres'], timeoutMinutes: 10, extra: { toString: 1 } };
      const { settings, problems } = readSavedSettings(hostile, fallback);
      expect(settings).toEqual({ ...fallback, services: ['postgres'], timeoutMinutes: 10 });
      expect(problems.map((problem) => problem.split(':')[0])).toEqual(['memoryBytes', 'cpus', 'env', 'allowedDomains']);
      expect(problems[0]).toMatch(/expected number, received string/);
    });

    it('gives the fallback, named, for settings that are not an object at all', () => {
      for (const saved of ['x', 42, null, [1]]) {
        const read = readSavedSettings(saved, fallback);
        expect(read.settings).toEqual(fallback);
        expect(read.problems).toEqual([expect.stringMatching(/^settings: .*not an object$/)]);
      }
    });
  });

  it('converts limits to the container machine, and back, and to the engine, each in one place', () => {
    const limits = { memoryBytes: 3 * gib, cpus: 1.5, pids: 256, diskBytes: 8 * gib };
    expect(machineLimits(limits)).toEqual({ memoryBytes: 3 * gib, nanoCpus: 1_500_000_000, pidsLimit: 256, diskBytes: 8 * gib });
    expect(limitsOfMachine(machineLimits(limits))).toEqual(limits);
    expect(engineResources(machineLimits(limits))).toEqual({ Memory: 3 * gib, MemorySwap: 3 * gib, NanoCpus: 1_500_000_000, PidsLimit: 256 });
  });
});

describe('the file settings are saved in', () => {
  it('names a container.json that is not JSON, or not an object, and reads it as empty', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { inspectMetadata } = await import('../../src/container/metadata.js');
    const root = await mkdtemp(join(tmpdir(), 'cadre-settings-file-'));
    expect(await inspectMetadata(root)).toEqual({ metadata: {}, file: join(root, 'container.json'), problem: null });
    await writeFile(join(root, 'container.json'), '{"settings": {"memoryBytes": 1');
    expect((await inspectMetadata(root)).problem).toBe('it is not JSON');
    await writeFile(join(root, 'container.json'), '["settings"]');
    expect(await inspectMetadata(root)).toMatchObject({ metadata: {}, problem: 'it holds JSON that is not an object' });
    await writeFile(join(root, 'container.json'), JSON.stringify({ session: 's1', settings: { cpus: 'many' } }));
    const { metadata, problem } = await inspectMetadata(root);
    expect(problem).toBeNull();
    expect(readSavedSettings(metadata.settings, defaultSettings).problems).toEqual([expect.stringMatching(/^cpus: .*expected number/)]);
  });
});
