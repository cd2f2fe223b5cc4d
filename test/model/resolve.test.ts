// Which model is active for a given environment and config, and how it is described.
import { describe, expect, it } from 'vitest';
import { describeModel, resolveModel } from '../../src/model/resolve.js';

describe('resolveModel', () => {
  it('is the offline engine when nothing is configured, and says how to configure a model', () => {
    const resolved = resolveModel({}, {});
    expect(resolved).toEqual({ provider: 'offline', source: 'default (no model configured)' });
    expect(describeModel(resolved)).toMatch(/ANTHROPIC_API_KEY.*CADRE_BASE_URL/s);
  });

  it('picks anthropic from its key, with the default model', () => {
    const resolved = resolveModel({}, { ANTHROPIC_API_KEY: 'sk-ant-secret', OPENAI_API_KEY: 'sk-other' });
    expect(resolved).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'sk-ant-secret', source: 'environment (ANTHROPIC_API_KEY)' });
    expect(describeModel(resolved)).not.toContain('sk-ant-secret');
  });

  it('takes provider:model from CADRE_MODEL over config', () => {
    const resolved = resolveModel({ provider: 'anthropic', name: 'x' }, { CADRE_MODEL: 'openai:gpt-4o-mini', OPENAI_API_KEY: 'k' });
    expect(resolved).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', source: 'environment (CADRE_MODEL)' });
  });

  it('treats a base URL as an OpenAI-compatible server that needs a model name', () => {
    expect(() => resolveModel({}, { CADRE_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/model name/);
    const resolved = resolveModel({}, { CADRE_BASE_URL: 'http://127.0.0.1:11434/v1', CADRE_MODEL: 'llama3.1' });
    expect(resolved).toEqual({ provider: 'openai-compatible', model: 'llama3.1', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined, source: 'environment (CADRE_BASE_URL)' });
    expect(describeModel(resolved)).toBe('openai-compatible · llama3.1 at http://127.0.0.1:11434/v1 (no key; from environment (CADRE_BASE_URL))');
  });

  it('uses config when the environment is silent, and refuses a named provider without its key', () => {
    expect(resolveModel({ provider: 'openai', name: 'gpt-4.1-mini', apiKey: 'cfg' }, {})).toMatchObject({ provider: 'openai', model: 'gpt-4.1-mini', source: 'config' });
    expect(() => resolveModel({ provider: 'anthropic' }, {})).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(resolveModel({ provider: 'offline' }, {})).toEqual({ provider: 'offline', source: 'default (no model configured)' });
    expect(resolveModel({ provider: 'offline' }, { ANTHROPIC_API_KEY: 'k' })).toMatchObject({ provider: 'anthropic' });
    expect(resolveModel({}, { CADRE_PROVIDER: 'offline', ANTHROPIC_API_KEY: 'k' })).toEqual({ provider: 'offline', source: 'environment (CADRE_PROVIDER)' });
  });

  it("sends a key only to the base URL set for its own provider: another provider chosen later gets neither the config's URL nor its key", () => {
    const config = { provider: 'anthropic' as const, baseUrl: 'http://127.0.0.1:8010/anthropic-proxy', apiKey: 'sk-ant-in-config' };
    expect(resolveModel(config, {})).toMatchObject({ provider: 'anthropic', baseUrl: config.baseUrl, apiKey: 'sk-ant-in-config' });
    const switched = resolveModel(config, { CADRE_MODEL: 'openai:gpt-4.1', OPENAI_API_KEY: 'sk-openai-own' });
    expect(switched).toMatchObject({ provider: 'openai', apiKey: 'sk-openai-own' });
    expect(switched).not.toHaveProperty('baseUrl');
    expect(() => resolveModel(config, { CADRE_PROVIDER: 'openai' })).toThrow(/OPENAI_API_KEY is not set/);
    const ollama = { baseUrl: 'http://127.0.0.1:11434/v1', name: 'llama3.1' };
    expect(resolveModel(ollama, { CADRE_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-ant-env' })).not.toHaveProperty('baseUrl');
    expect(resolveModel(ollama, { OPENAI_API_KEY: 'sk-openai-own' })).toMatchObject({ provider: 'openai-compatible', baseUrl: ollama.baseUrl });
  });
});
