// The audit actor as the single writer inside a parent machine: records land in order, audit.close seals the log.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { assign, createActor, sendTo, setup, waitFor } from 'xstate';
import { createAuditLogic, type AuditEvent, type AuditReport } from '../../src/store/audit-actor.js';
import type { AuditRecord } from '../../src/store/audit-record.js';
import { verifyAuditFile } from '../../src/store/audit-verify.js';
import { auditFileFor, createAuditWriter, newAuditSessionId } from '../../src/store/audit.js';
import { tempDir } from './temp.js';

function parentOf(logic: ReturnType<typeof createAuditLogic>) {
  return setup({
    types: { context: {} as { reports: AuditReport[] }, events: {} as AuditEvent | AuditReport },
    actors: { audit: logic },
  }).createMachine({
    context: { reports: [] },
    invoke: { id: 'audit', src: 'audit' },
    on: {
      'audit.record': { actions: sendTo('audit', ({ event }) => event) },
      'audit.close': { actions: sendTo('audit', ({ event }) => event) },
      'audit.closed': { actions: assign({ reports: ({ context, event }) => [...context.reports, event] }) },
      'audit.failed': { actions: assign({ reports: ({ context, event }) => [...context.reports, event] }) },
    },
  });
}

describe('audit actor', () => {
  it('appends a burst of records in order and seals the log on audit.close', async () => {
    const key = randomBytes(32);
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const parent = createActor(parentOf(createAuditLogic({ file, key, session }))).start();
    parent.send({ type: 'audit.record', recordType: 'session.started', data: {} });
    for (let index = 0; index < 100; index += 1) {
      parent.send({ type: 'audit.record', recordType: 'command.typed', data: { text: `line ${index}` } });
    }
    parent.send({ type: 'audit.close' });
    const done = await waitFor(parent, (snapshot) => snapshot.context.reports.length > 0);
    expect(done.context.reports).toEqual([{ type: 'audit.closed', file, count: 101, lastHash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const records = (await readFile(file, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as AuditRecord);
    expect(records.slice(1, 101).map((record) => (record.data as { text: string }).text)).toEqual(Array.from({ length: 100 }, (_, index) => `line ${index}`));
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 102, live: false });
    parent.stop();
  });

  it('reports a log it cannot write to its parent instead of crashing', async () => {
    const key = randomBytes(32);
    const dir = await tempDir();
    const session = newAuditSessionId();
    const file = auditFileFor(dir, session);
    const first = createActor(parentOf(createAuditLogic({ file, key, session }))).start();
    first.send({ type: 'audit.close' });
    await waitFor(first, (snapshot) => snapshot.context.reports.length > 0);
    const second = createActor(parentOf(createAuditLogic({ file, key, session }))).start();
    second.send({ type: 'audit.record', recordType: 'command.typed', data: { text: 'late' } });
    const failed = await waitFor(second, (snapshot) => snapshot.context.reports.length > 0);
    expect(failed.context.reports[0]).toMatchObject({ type: 'audit.failed', code: 'audit.log-unusable' });
    first.stop();
    second.stop();
  });

  it('feeds one open writer from actors started one after another', async () => {
    const key = randomBytes(32);
    const session = newAuditSessionId();
    const file = auditFileFor(await tempDir(), session);
    const writer = await createAuditWriter({ file, key, session });
    const before = createActor(parentOf(createAuditLogic({ writer }))).start();
    before.send({ type: 'audit.record', recordType: 'session.started', data: {} });
    before.stop();
    const after = createActor(parentOf(createAuditLogic({ writer }))).start();
    after.send({ type: 'audit.record', recordType: 'command.typed', data: { text: '/resume work' } });
    after.send({ type: 'audit.close' });
    const done = await waitFor(after, (snapshot) => snapshot.context.reports.length > 0);
    expect(done.context.reports[0]).toMatchObject({ type: 'audit.closed', file, count: 2 });
    expect(await verifyAuditFile(file, key)).toEqual({ ok: true, count: 3, live: false });
    after.stop();
  });
});
