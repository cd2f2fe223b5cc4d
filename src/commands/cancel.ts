// /cancel: stops the running task, or removes a queued one.
import { z } from 'zod';
import { say } from '../output.js';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

export const cancelCommand = defineCommand({
  name: 'cancel',
  summary: 'Stop the running task, or remove a queued one',
  usage: '/cancel [task_id]',
  positionals: ['taskId'],
  args: z.object({ taskId: z.string().optional().describe('the task to cancel (default: the running one)') }),
  run: async ({ taskId }, ctx) => {
    const { tasks } = ctx.runtime.session.view();
    if (tasks.length === 0) throw new CadreError('task.none', 'No task is running or queued.', { remedy: '/status shows the session.' });
    if (taskId !== undefined && !tasks.includes(taskId)) {
      throw new CadreError('task.unknown', `There is no task ${taskId}.`, { remedy: `Running or queued: ${tasks.join(', ')}.` });
    }
    // Said first: cancelling tells the task's outcome (and starts a queued vm-agent task) at once.
    ctx.emit(say(`Cancelling ${taskId ?? 'the running task'}.`, 'warn'));
    ctx.runtime.session.send({ type: 'task.cancel', ...(taskId ? { taskId } : {}) });
    ctx.runtime.audit('task.cancel', { taskId: taskId ?? null });
  },
});
