// Routing a container's request target to the provider's endpoint, and the upstream it goes to, whatever form the target takes.
import { describe, expect, it } from 'vitest';
import { matchRoute, upstreamTarget } from '../../src/gateway/providers.js';

describe('routes', () => {
  it('reads a target as a URL parser would, plain paths and tricky ones alike', () => {
    const path = (kind: 'anthropic' | 'openai', method: string, target: string): string | undefined => matchRoute(kind, method, target)?.upstreamPath;
    expect(path('anthropic', 'POST', '/v1/messages')).toBe('/v1/messages');
    expect(path('anthropic', 'POST', '/v1/messages/count_tokens')).toBe('/v1/messages/count_tokens');
    expect(path('anthropic', 'POST', '//evil.example:8080/v1/messages')).toBe('/v1/messages');
    expect(path('anthropic', 'POST', '//evil/v1/messages')).toBe('/v1/messages');
    expect(path('anthropic', 'POST', '/v1/./messages')).toBe('/v1/messages');
    expect(path('anthropic', 'POST', '/v1/x/../messages?beta=true')).toBe('/v1/messages?beta=true');
    expect(path('anthropic', 'POST', '/v1/messages/')).toBeUndefined();
    expect(path('anthropic', 'GET', '/v1/messages')).toBeUndefined();
    expect(path('anthropic', 'GET', '/v1/models/claude-test')).toBe('/v1/models/claude-test');
    expect(path('openai', 'POST', '/v1/chat/completions')).toBe('/chat/completions');
    expect(path('openai', 'POST', '/v1//chat/completions')).toBeUndefined();
    expect(path('openai', 'POST', 'http://evil/v1/chat/completions')).toBeUndefined();
  });

  it("goes to the configured base URL's host, port and path, never the client's", () => {
    const route = { upstreamPath: '/chat/completions', metered: 'chat' as const };
    expect(upstreamTarget({ kind: 'openai', baseUrl: 'https://api.example.test/v1/', apiKey: 'k' })(route)).toEqual({ origin: 'https://api.example.test', path: '/v1/chat/completions' });
    expect(upstreamTarget({ kind: 'openai', baseUrl: 'http://[::1]:8080/v1', apiKey: 'k' })(route)).toEqual({ origin: 'http://[::1]:8080', path: '/v1/chat/completions' });
  });
});
