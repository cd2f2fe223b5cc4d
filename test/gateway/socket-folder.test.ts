// The gateway socket folder that cadre opens for a container: its owner and the container's user get in, other local users do not.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateways } from '../../src/gateway/pool.js';
import { sandboxUser } from '../../src/container/workspace.js';
import { createBudget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';

const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Connects to the socket as another uid (needs root): 'connected' or the error code. */
async function connectAs(uid: number, gid: number, socketPath: string): Promise<string> {
  const script = `require('net').connect(${JSON.stringify(socketPath)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (error) => { console.log(error.code); process.exit(0); })`;
  const { stdout } = await run(process.execPath, ['-e', script], { uid, gid });
  return stdout.trim();
}

describe.runIf(process.getuid?.() === 0)('the gateway socket folder', () => {
  it('lets the container user reach the socket and keeps every other local user out', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cadre-run-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    // As cadre's data folder is: readable by all (the issue found run/ at 0755).
    await chmod(home, 0o755);
    const credentials = await openCredentials({ keysDir: join(home, 'keys') });
    const gateways = createGateways({
      runDir: join(home, 'run'), session: () => 's1', model: null, credentials, budget: createBudget(), audit: () => undefined, sink: () => undefined, allowLoopbackUpstreams: false, registryHosts: async () => [],
    });
    await gateways.open('vm-test', 'https://example.invalid/r.git', { isolation: true, allowedDomains: [] }, Date.now() + 300_000);
    cleanups.push(() => gateways.close('vm-test'));
    const folder = join(home, 'run', 'vm-test');
    const socketPath = join(folder, 'gateway.sock');

    const info = await stat(folder);
    expect({ mode: (info.mode & 0o777).toString(8), gid: info.gid }).toEqual({ mode: '710', gid: sandboxUser.gid });
    expect(await connectAs(sandboxUser.uid, sandboxUser.gid, socketPath)).toBe('connected');
    expect(await connectAs(4242, 4242, socketPath)).toBe('EACCES');
    expect(await connectAs(65534, 65534, socketPath)).toBe('EACCES');
  });
});
