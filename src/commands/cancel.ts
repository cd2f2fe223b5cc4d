// /cancel: stops the running task, or removes a queued one.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const cancelCommand = defineCommand({
  name: 'cancel',
  summary: 'Stop the running task, or remove a queued one',
  usage: '/cancel [task_id]',
  positionals: ['taskId'],
  args: z.object({ taskId: z.string().optional().describe('the task to cancel (default: the running one)') }),
  pending: 'the agents',
});
