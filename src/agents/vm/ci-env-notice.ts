// A vm-agent task's failed test command offers the variables the project's CI sets for its tests and the container lacks (once per task).
import type { OutputSink } from '../../output.js';
import type { ContainerRecord } from '../../container/records.js';
import type { DockerClient } from '../../container/docker-client.js';

/** A run-command result's display is `<command> → <ending>`; a test command names its runner. */
const failedTestCommand = (display: string): boolean => /\b(test|tests|jest|vitest|mocha|ava|tap)\b/.test(display.split(' → ')[0] ?? '');

export function createCiEnvNotices(options: { sink: OutputSink; audit: (type: string, data: Record<string, unknown>) => void }) {
  const told = new Set<string>();
  return {
    /** A tool of `taskId` failed: when it ran the tests and the project's CI sets variables this container lacks, say which, once. */
    async toolFailed(taskId: string, tool: string, display: string, target: { docker: DockerClient; record: ContainerRecord; env: Record<string, string> }): Promise<void> {
      if (tool !== 'run-command' || told.has(taskId) || !failedTestCommand(display)) return;
      told.add(taskId);
      const { ciEnvNote } = await import('../../container/ci-env.js');
      const note = await ciEnvNote({ docker: target.docker, dockerId: target.record.dockerId, workspaceDir: target.record.workspace.dir, env: target.env, containerId: target.record.id });
      if (!note) return;
      options.audit('vm-agent.ci-env-hint', { taskId, containerId: target.record.id });
      options.sink({ type: 'output.message', level: 'warn', text: note });
    },
    taskEnded: (taskId: string): boolean => told.delete(taskId),
  };
}
