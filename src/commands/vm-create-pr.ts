// /vm-create-pr: commits the container's work on a branch and opens a pull request; for a container made from a local checkout,
// the branch comes home into that checkout first (then pushed and its pull request opened when the checkout's origin is on GitHub).
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { result } from '../output.js';
import type { CheckoutBranchResult } from '../git/checkout-pull-request.js';
import { chooseContainer, containerIdArgs, looksLikeContainerId } from './container-id.js';
import { defineCommand } from './types.js';

/** What the person reads after the branch came home: where it is, that nothing of theirs moved, and what to do with it. */
function describeHome(home: CheckoutBranchResult, cwd: string): string {
  const git = home.checkout === cwd ? 'git' : `git -C ${home.checkout}`;
  const on = home.checkedOut.branch;
  const lines = [
    `✔ ${home.branch} is ${home.created ? 'a new branch' : 'already a branch'} in your checkout ${home.checkout} (commit ${home.commit.slice(0, 12)}, ${home.newCommits} new commit${home.newCommits === 1 ? '' : 's'}).`,
    `  Your working files, index${on ? ` and current branch (${on})` : ''} are as they were.`,
  ];
  if (on && home.checkedOut.commitsSinceBase > 0) {
    lines.push(`  ${on} gained ${home.checkedOut.commitsSinceBase} commit(s) since the container was created; merging brings both together.`);
  }
  if (home.pullRequest) lines.push(`✔ Pull request #${home.pullRequest.number} opened: ${home.pullRequest.url}\n  branch ${home.branch} → ${home.pullRequest.base}`);
  else {
    lines.push(`  Look at it: ${git} switch ${home.branch}    take it into ${on ?? 'your branch'}: ${git} merge ${home.branch}`);
    if (home.notPushed === 'no-github-remote') lines.push(`  The checkout has no origin on GitHub, so no pull request was opened: push it (${git} push -u <remote> ${home.branch}) and open one on your host.`);
    if (home.notPushed === 'no-token' && home.github) {
      lines.push(`  origin is ${home.github.owner}/${home.github.repo} on GitHub: export GITHUB_TOKEN=<token> (or set github.token) and run /vm-create-pr again to push it and open the pull request, or ${git} push -u origin ${home.branch}.`);
    }
  }
  return lines.join('\n');
}

const vmCreatePrUsage = '/vm-create-pr [container_id] "<title>" ["<description>"] [--checkout <path>] [--no-push]';

export const vmCreatePrCommand = defineCommand({
  name: 'vm-create-pr',
  summary: "Commit a container's changes on a new branch and open a pull request (or bring the branch into your checkout)",
  usage: vmCreatePrUsage,
  examples: ['/vm-create-pr vm-3f2a "Add a health endpoint" "GET /health answers 200."', '/vm-create-pr "Try the fix" --no-push'],
  positionals: ['containerId', 'title', 'description'],
  args: z.object({
    ...containerIdArgs('default: the last container of this session; read as the id when three words are given or the first is like vm-3f2a'),
    title: z.string().min(1).optional().describe('the pull request title (and commit message)'),
    description: z.string().optional().describe('the pull request description (may span lines)'),
    checkout: z.string().optional().describe('for a container made from a local checkout: where that checkout is now, if it moved'),
    noPush: z.boolean().optional().describe('for a container made from a local checkout: only bring the branch into it, even when its origin is on GitHub'),
  }),
  run: async ({ containerId: first, title: second, description: third, container, checkout, noPush }, ctx) => {
    // The words after the command: [container_id] "<title>" ["<description>"]. The id is the first of three words, or a first
    // word like vm-3f2a; otherwise the first word is the title and the container is the last of this session.
    const words = [first, second, third].filter((word): word is string => word !== undefined);
    const named = words.length === 3 || looksLikeContainerId(words[0]) ? words.shift() : undefined;
    const [title, description = ''] = words;
    if (!title) throw new CadreError('command.bad-argument', 'Missing "<title>": the pull request title (and commit message).', { remedy: `Usage: ${vmCreatePrUsage}`, exitCode: exitCodes.usage });
    const containerId = chooseContainer('vm-create-pr', { containerId: named, container }, ctx, ' "<title>"');
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.use(containerId, 'open a pull request from');
    const [{ createPullRequest }, { bringBranchHome }, { whileContainerPaused }, { isLocalCheckout, repositoryLocation }] = await Promise.all([
      import('../git/pull-request.js'), import('../git/checkout-pull-request.js'), import('../container/paused.js'), import('../git/repository-url.js'),
    ]);
    const local = isLocalCheckout(record.repoUrl);
    if (!local && (checkout !== undefined || noPush)) {
      throw new CadreError('vm.not-local-checkout', `${record.id} was created from ${record.repoUrl}, not from a local checkout, so --checkout and --no-push do not apply.`, {
        remedy: `run /vm-create-pr ${record.id} "<title>" "<description>" to push its branch and open the pull request`, exitCode: exitCodes.usage,
      });
    }
    const { git, github } = ctx.runtime.config;
    const shared = {
      workspaceDir: record.workspace.dir,
      containerId: record.id,
      title,
      description,
      config: { ...(git.authorName ? { authorName: git.authorName } : {}), ...(git.authorEmail ? { authorEmail: git.authorEmail } : {}), ...(github.token ? { githubToken: github.token } : {}), githubBaseUrl: github.baseUrl },
      env: process.env,
      onProgress: ctx.emit,
      signal: ctx.signal,
    };
    // Frozen while cadre checks, commits and pushes its workspace from the host, so no link appears behind a check.
    const paused = <T>(work: () => Promise<T>) => whileContainerPaused({ docker: vm.docker, dockerId: record.dockerId, containerId: record.id, onEvent: ctx.emit }, work);
    // On an engine on another machine the workspace is copied out while the sandbox is held still, and worked on here; the
    // commit is then in the pushed branch, not in the sandbox's own history.
    const withWorkspace = async <T>(work: (workspaceDir: string) => Promise<T>): Promise<T> => {
      if (vm.backend.caps.hostFilesystem) return paused(() => work(record.workspace.dir));
      const copy = await vm.backend.readWorkspace({ id: record.id, engineId: record.dockerId }, record.workspace, ctx.emit);
      try {
        return await work(copy.dir);
      } finally {
        await copy.release();
      }
    };
    if (local) {
      const target = checkout === undefined ? record.repoUrl : repositoryLocation(checkout, ctx.cwd).url;
      const home = await withWorkspace((workspaceDir) => bringBranchHome({ ...shared, workspaceDir, checkout: target, push: noPush !== true }));
      ctx.runtime.audit('checkout.branch-created', { containerId: record.id, checkout: home.checkout, branch: home.branch, commit: home.commit, created: home.created });
      if (home.pullRequest) ctx.runtime.audit('pull-request.created', { containerId: record.id, branch: home.branch, commit: home.commit, url: home.pullRequest.url });
      ctx.emit(result('vm.checkout-branch', home, describeHome(home, ctx.cwd)));
      return;
    }
    // The record's URL (a label cadre set), never the workspace's own origin, which the container could rewrite.
    const pr = await withWorkspace((workspaceDir) => createPullRequest({ ...shared, workspaceDir, repositoryUrl: record.repoUrl }));
    ctx.runtime.audit('pull-request.created', { containerId: record.id, branch: pr.branch, commit: pr.commit, url: pr.url });
    ctx.emit(result('vm.pull-request', pr, `✔ Pull request #${pr.number} opened: ${pr.url}\n  branch ${pr.branch} → ${pr.base}, commit ${pr.commit.slice(0, 12)}`));
  },
});
