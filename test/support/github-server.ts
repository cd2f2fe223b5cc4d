// A local GitHub REST server on 127.0.0.1 for tests: repositories and pull requests, token auth, response shapes as in GitHub's OpenAPI description.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PullRequestRecord {
  number: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  state: 'open' | 'closed';
  headSha: string;
  baseSha: string;
}

/** One response the server sent: `operation` names it as the OpenAPI excerpt does (`POST /repos/{owner}/{repo}/pulls`). */
export interface Exchange {
  operation: string;
  status: number;
  body: unknown;
}

export interface GitHubServer {
  /** The API base URL (what github.baseUrl would be). */
  url: string;
  /** Adds a repository, or changes the default branch of one (its pull requests stay). */
  addRepository(fullName: string, options?: { defaultBranch?: string }): void;
  addPullRequest(fullName: string, pull: { title: string; head: string; base: string; body?: string }): PullRequestRecord;
  pullRequests(fullName: string): PullRequestRecord[];
  /** Every response so far, in order. */
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** Resolves a branch of a repository to its commit (e.g. from the git server); undefined when it does not exist. */
export type BranchResolver = (fullName: string, branch: string) => Promise<string | undefined>;

const docs = 'https://docs.github.com/rest';
const time = '2025-01-01T00:00:00Z';

export async function startGitHubServer(options: { token: string; login?: string; resolveBranch?: BranchResolver }): Promise<GitHubServer> {
  const login = options.login ?? 'cadre-bot';
  const repos = new Map<string, { defaultBranch: string; id: number; pulls: PullRequestRecord[] }>();
  const exchanges: Exchange[] = [];
  const resolveBranch = options.resolveBranch ?? (async () => '0'.repeat(40));
  let base = '';

  const user = (name: string) => ({
    login: name,
    id: 1,
    node_id: 'MDQ6VXNlcjE=',
    avatar_url: `${base}/avatars/${name}`,
    url: `${base}/users/${name}`,
    html_url: `${base}/${name}`,
    type: 'User',
    site_admin: false,
  });
  const repository = (fullName: string) => {
    const record = repos.get(fullName)!;
    const [owner = '', name = ''] = fullName.split('/');
    return {
      id: record.id,
      node_id: `R_${record.id}`,
      name,
      full_name: fullName,
      owner: user(owner),
      private: true,
      html_url: `${base}/${fullName}`,
      description: null,
      fork: false,
      url: `${base}/repos/${fullName}`,
      clone_url: `${base}/${fullName}.git`,
      default_branch: record.defaultBranch,
      visibility: 'private',
      archived: false,
      disabled: false,
      created_at: time,
      updated_at: time,
      pushed_at: time,
    };
  };
  const branchObject = (fullName: string, ref: string, sha: string) => ({
    label: `${fullName.split('/')[0]}:${ref}`,
    ref,
    sha,
    user: user(fullName.split('/')[0] ?? ''),
    repo: repository(fullName),
  });
  const pullSimple = (fullName: string, pull: PullRequestRecord) => ({
    url: `${base}/repos/${fullName}/pulls/${pull.number}`,
    id: 1000 + pull.number,
    node_id: `PR_${pull.number}`,
    html_url: `${base}/${fullName}/pull/${pull.number}`,
    diff_url: `${base}/${fullName}/pull/${pull.number}.diff`,
    patch_url: `${base}/${fullName}/pull/${pull.number}.patch`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: user(login),
    body: pull.body,
    created_at: time,
    updated_at: time,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    head: branchObject(fullName, pull.head, pull.headSha),
    base: branchObject(fullName, pull.base, pull.baseSha),
    draft: false,
  });
  const pullFull = (fullName: string, pull: PullRequestRecord) => ({
    ...pullSimple(fullName, pull),
    merged: false,
    mergeable: null,
    mergeable_state: 'unknown',
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  });
  const addPull = (fullName: string, pull: Omit<PullRequestRecord, 'number' | 'state'>): PullRequestRecord => {
    const record = repos.get(fullName);
    if (!record) throw new Error(`no repository ${fullName}`);
    const created: PullRequestRecord = { ...pull, number: record.pulls.length + 1, state: 'open' };
    record.pulls.push(created);
    return created;
  };

  async function route(req: IncomingMessage, url: URL): Promise<{ operation: string; status: number; body: unknown }> {
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/pulls)?\/?$/.exec(url.pathname);
    const operation = match ? `${req.method} /repos/{owner}/{repo}${match[3] ?? ''}` : `${req.method} ${url.pathname}`;
    const auth = req.headers.authorization ?? '';
    if (auth !== `token ${options.token}` && auth !== `Bearer ${options.token}`) {
      return { operation, status: 401, body: { message: 'Bad credentials', documentation_url: docs, status: '401' } };
    }
    const fullName = match ? `${match[1]}/${match[2]}` : '';
    const record = repos.get(fullName);
    if (!match || !record) return { operation, status: 404, body: { message: 'Not Found', documentation_url: docs, status: '404' } };
    if (req.method === 'GET' && !match[3]) return { operation, status: 200, body: { ...repository(fullName), has_issues: true, has_wiki: false } };
    if (req.method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      const head = url.searchParams.get('head');
      const found = record.pulls.filter((pull) => (state === 'all' || pull.state === state) && (!head || `${match[1]}:${pull.head}` === head));
      return { operation, status: 200, body: found.map((pull) => pullSimple(fullName, pull)) };
    }
    if (req.method === 'POST') return createPull(operation, fullName, record, await readJson(req));
    return { operation, status: 404, body: { message: 'Not Found', documentation_url: docs, status: '404' } };
  }

  async function createPull(operation: string, fullName: string, record: { pulls: PullRequestRecord[] }, input: Record<string, unknown>) {
    const invalid = (field: string, message: string, code = 'invalid') => ({
      operation,
      status: 422,
      body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field, code, message }], documentation_url: docs, status: '422' },
    });
    const title = typeof input.title === 'string' ? input.title : '';
    const head = typeof input.head === 'string' ? input.head.replace(/^[^:]+:/, '') : '';
    const baseRef = typeof input.base === 'string' ? input.base : '';
    if (!title) return invalid('title', 'title is missing', 'missing_field');
    const [headSha, baseSha] = await Promise.all([resolveBranch(fullName, head), resolveBranch(fullName, baseRef)]);
    if (!headSha) return invalid('head', 'head invalid');
    if (!baseSha) return invalid('base', 'base invalid');
    if (record.pulls.some((pull) => pull.state === 'open' && pull.head === head && pull.base === baseRef)) {
      return invalid('', `A pull request already exists for ${fullName.split('/')[0]}:${head}.`, 'custom');
    }
    const body = typeof input.body === 'string' ? input.body : null;
    return { operation, status: 201, body: pullFull(fullName, addPull(fullName, { title, body, head, base: baseRef, headSha, baseSha })) };
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    route(req, new URL(req.url ?? '/', 'http://127.0.0.1'))
      .then((exchange) => {
        exchanges.push(exchange);
        res.writeHead(exchange.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(exchange.body));
      })
      .catch((error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    exchanges,
    addRepository(fullName, repoOptions = {}) {
      const existing = repos.get(fullName);
      repos.set(fullName, { defaultBranch: repoOptions.defaultBranch ?? 'main', id: existing?.id ?? repos.size + 1, pulls: existing?.pulls ?? [] });
    },
    addPullRequest(fullName, pull) {
      return addPull(fullName, { title: pull.title, body: pull.body ?? null, head: pull.head, base: pull.base, headSha: '0'.repeat(40), baseSha: '0'.repeat(40) });
    },
    pullRequests: (fullName) => [...(repos.get(fullName)?.pulls ?? [])],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}
