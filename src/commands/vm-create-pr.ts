// /vm-create-pr: commits the container's work on a branch and opens a pull request.
import { z } from 'zod';
import { result } from '../output.js';
import { defineCommand } from './types.js';

export const vmCreatePrCommand = defineCommand({
  name: 'vm-create-pr',
  summary: "Commit a container's changes on a new branch and open a pull request",
  usage: '/vm-create-pr <container_id> "<title>" "<description>"',
  positionals: ['containerId', 'title', 'description'],
  args: z.object({
    containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a'),
    title: z.string().min(1).describe('the pull request title'),
    description: z.string().default('').describe('the pull request description (may span lines)'),
  }),
  run: async ({ containerId, title, description }, ctx) => {
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.use(containerId, 'open a pull request from');
    const [{ createPullRequest }, { whileContainerPaused }] = await Promise.all([import('../git/pull-request.js'), import('../container/paused.js')]);
    const { git, github } = ctx.runtime.config;
    // Frozen while cadre checks, commits and pushes its workspace from the host, so no link appears behind a check.
    // The record's URL (a label cadre set), never the workspace's own origin, which the container could rewrite.
    const pr = await whileContainerPaused({ docker: vm.docker, dockerId: record.dockerId, containerId: record.id, onEvent: ctx.emit }, () => createPullRequest({
      workspaceDir: record.workspace.dir,
      containerId: record.id,
      repositoryUrl: record.repoUrl,
      title,
      description,
      config: { ...(git.authorName ? { authorName: git.authorName } : {}), ...(git.authorEmail ? { authorEmail: git.authorEmail } : {}), ...(github.token ? { githubToken: github.token } : {}), githubBaseUrl: github.baseUrl },
      env: process.env,
      onProgress: ctx.emit,
      signal: ctx.signal,
    }));
    ctx.runtime.audit('pull-request.created', { containerId: record.id, branch: pr.branch, commit: pr.commit, url: pr.url });
    ctx.emit(result('vm.pull-request', pr, `✔ Pull request #${pr.number} opened: ${pr.url}\n  branch ${pr.branch} → ${pr.base}, commit ${pr.commit.slice(0, 12)}`));
  },
});
