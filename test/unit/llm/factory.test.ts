import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors/index.js';
import { createLlmProvider, parseLlmSpec } from '../../../src/llm/factory.js';

/** Config from an explicit environment only (no file, no process env). */
function configWith(env: Record<string, string> = {}) {
  return loadConfig({ env, cwd: '/nonexistent-dir-for-config' });
}

describe('when parsing an llm spec', () => {
  it.each([
    ['anthropic:claude-sonnet-4-6', { provider: 'anthropic', model: 'claude-sonnet-4-6' }],
    ['openai:gpt-5.4', { provider: 'openai', model: 'gpt-5.4' }],
    ['bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0', { provider: 'bedrock', model: 'anthropic.claude-3-5-sonnet-20241022-v2:0' }],
    ['bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0', { provider: 'bedrock', model: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' }],
    [
      'openai-compatible:http://localhost:11434/v1#qwen2.5:7b',
      { provider: 'openai-compatible', model: 'qwen2.5:7b', baseUrl: 'http://localhost:11434/v1' },
    ],
    ['openai-compatible:llama3.1:8b', { provider: 'openai-compatible', model: 'llama3.1:8b' }],
    ['offline:analyst', { provider: 'offline', model: 'analyst' }],
  ])('splits %s on the first colon only', (spec, expected) => {
    expect(parseLlmSpec(spec)).toEqual(expected);
  });

  it.each([
    ['claude-sonnet-4-6', /names no provider/],
    ['gemini:pro', /unknown provider "gemini"/],
    ['anthropic:', /names no model/],
    ['openai-compatible:localhost:11434#qwen', /not an http\(s\) URL/],
  ])('rejects %s with a ConfigError that says what to write', (spec, message) => {
    expect(() => parseLlmSpec(spec)).toThrow(ConfigError);
    expect(() => parseLlmSpec(spec)).toThrow(message);
  });
});

describe('when building a provider from a spec', () => {
  it('builds each provider with its name and model', () => {
    const config = configWith({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' });
    const built = [
      createLlmProvider('anthropic:claude-sonnet-4-6', config),
      createLlmProvider('openai:gpt-5.4', config),
      createLlmProvider('openai-compatible:http://127.0.0.1:8000/v1#mistral', config),
      createLlmProvider('bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0', config),
      createLlmProvider('offline:analyst', config, { offlineBrain: () => '{}' }),
    ];
    expect(built.map((provider) => [provider.provider, provider.model])).toEqual([
      ['anthropic', 'claude-sonnet-4-6'],
      ['openai', 'gpt-5.4'],
      ['openai-compatible', 'mistral'],
      ['bedrock', 'anthropic.claude-3-5-sonnet-20241022-v2:0'],
      ['offline', 'analyst'],
    ]);
  });

  it('names the missing environment variable for a missing key', () => {
    expect(() => createLlmProvider('anthropic:claude-sonnet-4-6', configWith())).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(() => createLlmProvider('openai:gpt-5.4', configWith())).toThrow(/OPENAI_API_KEY is not set/);
  });

  it('needs no key for a compatible server but a URL, from the spec or OPENAI_BASE_URL', () => {
    expect(() => createLlmProvider('openai-compatible:mistral', configWith())).toThrow(/OPENAI_BASE_URL is not set/);
    expect(createLlmProvider('openai-compatible:mistral', configWith({ OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' })).model).toBe(
      'mistral',
    );
  });

  it('refuses offline without the analyst brain', () => {
    expect(() => createLlmProvider('offline:analyst', configWith())).toThrow(ConfigError);
  });
});
