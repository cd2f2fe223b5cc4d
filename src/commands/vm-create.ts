// /vm-create: creates an isolated container from a repository.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmCreateCommand = defineCommand({
  name: 'vm-create',
  summary: 'Clone a repository into a new isolated container',
  usage: '/vm-create <repo_url> [--config "memory: 4GB\\ncpu: 2 cores\\ntimeout: 30 minutes"]',
  positionals: ['repoUrl'],
  args: z.object({
    repoUrl: z.string().min(1).describe('the Git repository URL to clone'),
    config: z.string().optional().describe('lines of "memory: <size>", "cpu: <n> cores", "timeout: <n> minutes"'),
  }),
  pending: 'container support',
});
