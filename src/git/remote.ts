// Where a pull request goes: owner/repo, the HTTPS push URL and the REST API base, from the repository URL (https or ssh forms).
import { CadreError } from '../errors.js';

export const githubApiBaseUrl = 'https://api.github.com';

export interface GitHubRemote {
  host: string;
  owner: string;
  repo: string;
  /** The URL cadre pushes to (ssh forms become https: isomorphic-git speaks only HTTP). */
  pushUrl: string;
  /** The REST API base: `https://api.github.com`, or `https://<host>/api/v3` on GitHub Enterprise. */
  apiBaseUrl: string;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Host, path and scheme of `https://…`, `http://…`, `ssh://git@host/…` and scp-like `git@host:owner/repo.git` URLs. */
function splitUrl(url: string): { scheme: string; host: string; path: string } | undefined {
  const scpLike = /^(?:[\w.-]+@)?([\w.-]+):(?!\/\/)(.+)$/.exec(url);
  if (scpLike && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return { scheme: 'ssh', host: scpLike[1] ?? '', path: scpLike[2] ?? '' };
  try {
    const parsed = new URL(url);
    return { scheme: parsed.protocol.replace(/:$/, ''), host: parsed.host, path: decodeURIComponent(parsed.pathname) };
  } catch {
    return undefined;
  }
}

function notGitHub(url: string, reason: string, apiBaseUrl: string): CadreError {
  return new CadreError('git.not-github', `Cannot open a pull request for ${url}: ${reason}.`, {
    remedy:
      apiBaseUrl === githubApiBaseUrl
        ? 'pull requests work with repositories on github.com; for GitHub Enterprise set github.baseUrl to https://<host>/api/v3'
        : `the configured GitHub API (${apiBaseUrl}) serves repositories on its own host only; check github.baseUrl and the repository URL`,
  });
}

/**
 * Parses `repositoryUrl` as a repository on github.com or on the GitHub host that
 * `apiBaseUrl` names (GitHub Enterprise). Anything else is a `git.not-github` error.
 * Plain http is accepted only on loopback hosts (local test servers): the token travels with the push.
 */
export function parseGitHubRemote(repositoryUrl: string, apiBaseUrl: string = githubApiBaseUrl): GitHubRemote {
  const parts = splitUrl(repositoryUrl.trim());
  if (!parts || !['https', 'http', 'ssh', 'git+ssh'].includes(parts.scheme)) throw notGitHub(repositoryUrl, 'it is not an https or ssh repository URL', apiBaseUrl);
  const segments = parts.path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '').split('/');
  const [owner, repo] = segments;
  if (segments.length !== 2 || !owner || !repo) throw notGitHub(repositoryUrl, 'its path is not <owner>/<repository>', apiBaseUrl);

  const api = new URL(apiBaseUrl);
  const apiBase = apiBaseUrl.replace(/\/+$/, '');
  const hostname = parts.host.replace(/:\d+$/, '').toLowerCase();
  const githubDotCom = hostname === 'github.com' && apiBase === githubApiBaseUrl;
  if (!githubDotCom && hostname !== api.hostname.toLowerCase()) throw notGitHub(repositoryUrl, `${hostname} is not the GitHub host of ${apiBase}`, apiBaseUrl);

  const secure = parts.scheme !== 'http';
  if (!secure && !loopbackHosts.has(hostname)) {
    throw new CadreError('git.insecure-remote', `Refusing to send the GitHub token over plain http to ${parts.host}.`, {
      remedy: `use the https URL of the repository (https://${parts.host}/${owner}/${repo}.git)`,
    });
  }
  const pushHost = parts.scheme.endsWith('ssh') ? hostname : parts.host;
  return { host: hostname, owner, repo, pushUrl: `${secure ? 'https' : 'http'}://${pushHost}/${owner}/${repo}.git`, apiBaseUrl: apiBase };
}
