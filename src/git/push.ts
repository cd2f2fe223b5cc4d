// Talking to the git remote with the host's token: does a branch exist there, and pushing one. The token goes only through onAuth.
import http from 'isomorphic-git/http/node';
import git, { Errors } from 'isomorphic-git';
import type { AuthCallback, PromiseFsClient } from 'isomorphic-git';
import { CadreError, exitCodes } from '../errors.js';

export interface RemoteAccess {
  /** The URL cadre chose (from the container record), never the workspace's configured remote. */
  url: string;
  token: string;
  signal?: AbortSignal;
}

/** GitHub takes a token as the password of Basic auth; the username is not checked. */
const authFor = (token: string): AuthCallback => () => ({ username: 'x-access-token', password: token });

function remoteError(error: unknown, url: string, action: string): CadreError {
  if (error instanceof CadreError) return error;
  if (error instanceof Errors.HttpError && [401, 403].includes(error.data.statusCode)) {
    return new CadreError('git.auth', `The git server refused the GitHub token while trying to ${action} (${url}: HTTP ${error.data.statusCode}).`, {
      remedy: 'check GITHUB_TOKEN (or github.token): it must be valid and allowed to push to this repository (contents: write)',
      cause: error,
    });
  }
  if (error instanceof Errors.PushRejectedError || error instanceof Errors.GitPushError) {
    return new CadreError('git.push-rejected', `The remote rejected the push: ${error.message}.`, {
      remedy: 'the branch may have been created meanwhile or be protected; try a different title',
      cause: error,
    });
  }
  if (error instanceof Errors.UserCanceledError || (error as Error | undefined)?.name === 'AbortError') {
    return new CadreError('git.cancelled', `Cancelled while trying to ${action}.`, { cause: error, exitCode: exitCodes.interrupted });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new CadreError('git.remote', `Could not ${action} (${url}): ${reason}`, {
    remedy: `check that the repository answers with /test-connectivity ${url}`,
    cause: error,
  });
}

/** The commit of `refs/heads/<branch>` on the remote, or undefined; also proves the token is accepted. */
export async function remoteBranchCommit(access: RemoteAccess, branch: string): Promise<string | undefined> {
  try {
    const refs = await git.listServerRefs({
      http,
      url: access.url,
      forPush: true,
      protocolVersion: 1,
      prefix: `refs/heads/${branch}`,
      onAuth: authFor(access.token),
      corsProxy: '',
    });
    return refs.find((ref) => ref.ref === `refs/heads/${branch}`)?.oid;
  } catch (error) {
    throw remoteError(error, access.url, 'read the branches of the remote');
  }
}

/**
 * Pushes local `branch` to the same name on the remote (or to `remoteBranch`). The URL and CORS proxy are
 * given explicitly so nothing in the workspace's .git/config (which the container can
 * write) can redirect the token.
 */
export async function pushBranch(
  access: RemoteAccess & { fs: PromiseFsClient; dir: string; branch: string; remoteBranch?: string; onProgress?: (phase: string, loaded: number, total?: number) => void },
): Promise<void> {
  const target = access.remoteBranch ?? access.branch;
  let result: Awaited<ReturnType<typeof git.push>>;
  try {
    result = await git.push({
      fs: access.fs,
      http,
      dir: access.dir,
      url: access.url,
      ref: access.branch,
      remoteRef: `refs/heads/${target}`,
      corsProxy: '',
      onAuth: authFor(access.token),
      ...(access.signal ? { signal: access.signal } : {}),
      ...(access.onProgress ? { onProgress: (event) => access.onProgress?.(event.phase, event.loaded, event.total) } : {}),
    });
  } catch (error) {
    throw remoteError(error, access.url, `push ${target}`);
  }
  const refError = result.refs[`refs/heads/${target}`]?.error;
  if (!result.ok || refError) {
    throw new CadreError('git.push-rejected', `The remote rejected the push of ${target}: ${refError ?? result.error ?? 'no reason given'}.`, {
      remedy: 'the branch may have been created meanwhile or be protected; try a different title',
    });
  }
}
