// parseGitHubRemote: owner/repo, push URL and API base from https and ssh repository URLs; non-GitHub and insecure remotes refused.
import { describe, expect, it } from 'vitest';
import { parseGitHubRemote } from '../../src/git/remote.js';

describe('parseGitHubRemote', () => {
  it.each([
    ['https://github.com/acme/widgets.git', 'https://github.com/acme/widgets.git'],
    ['https://github.com/acme/widgets', 'https://github.com/acme/widgets.git'],
    ['https://github.com/acme/widgets/', 'https://github.com/acme/widgets.git'],
    ['git@github.com:acme/widgets.git', 'https://github.com/acme/widgets.git'],
    ['ssh://git@github.com/acme/widgets.git', 'https://github.com/acme/widgets.git'],
    ['ssh://git@github.com:22/acme/widgets', 'https://github.com/acme/widgets.git'],
  ])('reads %s as acme/widgets on github.com', (url, pushUrl) => {
    expect(parseGitHubRemote(url)).toEqual({ host: 'github.com', owner: 'acme', repo: 'widgets', pushUrl, apiBaseUrl: 'https://api.github.com' });
  });

  it('accepts a GitHub Enterprise host when github.baseUrl names it', () => {
    expect(parseGitHubRemote('git@ghe.example.com:team/app.git', 'https://ghe.example.com/api/v3/')).toEqual({
      host: 'ghe.example.com',
      owner: 'team',
      repo: 'app',
      pushUrl: 'https://ghe.example.com/team/app.git',
      apiBaseUrl: 'https://ghe.example.com/api/v3',
    });
  });

  it.each([
    ['https://gitlab.com/acme/widgets.git', undefined, 'github.baseUrl to https://<host>/api/v3'],
    ['https://github.com/acme/widgets.git', 'https://ghe.example.com/api/v3', 'own host'],
    ['https://github.com/acme', undefined, '<owner>/<repository>'],
    ['https://github.com/acme/widgets/tree/main', undefined, '<owner>/<repository>'],
    ['file:///srv/widgets.git', undefined, 'github.baseUrl'],
    ['not a url', undefined, 'github.baseUrl'],
  ])('refuses %s as a pull-request remote', (url, base, hint) => {
    let caught: unknown;
    try {
      parseGitHubRemote(url, base);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'git.not-github' });
    expect(`${(caught as Error).message} ${(caught as { remedy: string }).remedy}`).toContain(hint);
  });

  it('sends the token over plain http only to loopback test servers', () => {
    expect(parseGitHubRemote('http://127.0.0.1:4000/acme/widgets.git', 'http://127.0.0.1:5000').pushUrl).toBe('http://127.0.0.1:4000/acme/widgets.git');
    expect(() => parseGitHubRemote('http://ghe.example.com/acme/widgets.git', 'https://ghe.example.com/api/v3')).toThrow(
      expect.objectContaining({ code: 'git.insecure-remote' }),
    );
  });
});
