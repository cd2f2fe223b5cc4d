// /test-connectivity: checks that a repository answers.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const testConnectivityCommand = defineCommand({
  name: 'test-connectivity',
  summary: 'Check that a repository URL is reachable (DNS, connection, TLS, authentication)',
  usage: '/test-connectivity <repo_url>',
  positionals: ['repoUrl'],
  args: z.object({ repoUrl: z.string().min(1).describe('the Git repository URL') }),
  pending: 'container support',
});
