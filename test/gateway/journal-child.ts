// A gateway in a process of its own, as cadre runs it (budget with the journal of calls in flight), for a test to kill -9.
import { join } from 'node:path';
import { createBudget } from '../../src/gateway/budget.js';
import { openCallJournal } from '../../src/gateway/call-journal.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import { startGateway } from '../../src/gateway/server.js';

const [home, upstreamUrl] = process.argv.slice(2) as [string, string];
const credentials = await openCredentials({ keysDir: join(home, 'keys') });
const budget = createBudget({ limit: 50_000, journal: openCallJournal(join(home, 'journal')) });
const container = { cid: 'c1', session: 's1', allowedDomains: [], networkIsolation: false };
const { token, jti } = credentials.issueContainerToken({ session: container.session, cid: container.cid, deadline: new Date(Date.now() + 3_600_000) });
const gateway = await startGateway({
  socketPath: join(home, 'run', 'gateway.sock'),
  container: { ...container, jti },
  provider: { kind: 'anthropic', baseUrl: upstreamUrl, apiKey: 'sk-child-key' },
  credentials,
  budget,
  audit: () => undefined,
  registryHosts: [],
});
process.stdout.write(`${JSON.stringify({ socketPath: gateway.socketPath, token })}\n`);
