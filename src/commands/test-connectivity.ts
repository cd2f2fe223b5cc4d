// /test-connectivity: checks that a repository answers.
import { z } from 'zod';
import { result } from '../output.js';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

export const testConnectivityCommand = defineCommand({
  name: 'test-connectivity',
  summary: 'Check that a repository URL is reachable (DNS, connection, TLS, authentication)',
  usage: '/test-connectivity <repo_url>',
  positionals: ['repoUrl'],
  args: z.object({ repoUrl: z.string().min(1).describe('the Git repository URL') }),
  run: async ({ repoUrl }, ctx) => {
    const { testConnectivity } = await import('../container/connectivity.js');
    const report = await testConnectivity({ url: repoUrl });
    if (!report.ok) throw new CadreError(`connectivity.${report.stage}`, `${report.message} (stage: ${report.stage})`, { remedy: report.remedy });
    ctx.emit(result('connectivity', report, `✔ ${repoUrl} answers (${report.address}): ${report.refs} refs, default branch ${report.headBranch ?? 'unknown'}, ${report.elapsedMs} ms`));
  },
});
