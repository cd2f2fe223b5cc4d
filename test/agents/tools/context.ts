// Test helper: a real temporary project and universal-agent's tool context over it, calls going through the kernel.
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { universalTools } from '../../../src/agents/tools/index.js';
import { createPermissions, defaultRules, type PermissionRules } from '../../../src/agents/tools/permissions.js';
import { createProjectToolContext } from '../../../src/agents/tools/project-files.js';
import { createStagedView } from '../../../src/agents/tools/staged-view.js';
import { runTool, type ToolAuditEntry } from '../../../src/agents/tools/wrapper.js';

export function makeProject(files: Record<string, string | Buffer>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-tools-')));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

export function toolContext(root: string, rules: PermissionRules = defaultRules) {
  const audit: ToolAuditEntry[] = [];
  const context = createProjectToolContext({
    root,
    view: createStagedView(root),
    permissions: createPermissions(root, rules),
    plan: { summaries: new Map(), proposed: false },
    signal: new AbortController().signal,
  });
  let n = 0;
  const call = (name: string, input: unknown) =>
    runTool(universalTools, { id: `call-${(n += 1)}`, name, input }, context, { kinds: ['read', 'write'], audit: (entry) => audit.push(entry) });
  return { context, call, audit };
}

/** The promise's value, or 'still running' after `ms`: a call that hangs fails the test instead of stalling it. */
export function within<T>(ms: number, work: Promise<T>): Promise<T | 'still running'> {
  return Promise.race([work, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms).unref())]);
}

/** Opens and closes a named pipe's writing end, so a read blocked on it (old code) ends instead of holding a thread. */
export function releaseReaders(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader was waiting.
  }
}
