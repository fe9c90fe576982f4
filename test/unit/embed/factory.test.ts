import { describe, expect, it } from 'vitest';
import { createEmbedder } from '../../../src/embed/index.js';
import { ConfigError } from '../../../src/errors/index.js';

const config = { openaiApiKey: 'sk-test', openaiBaseUrl: undefined, awsRegion: 'eu-west-1', bedrockEndpoint: undefined };

describe('createEmbedder', () => {
  it('builds each adapter from its spec', () => {
    expect(createEmbedder('local', config).id).toBe('local:hash-384');
    expect(createEmbedder('local:128', config).dimensions).toBe(128);
    const openai = createEmbedder('openai:text-embedding-3-small', config);
    expect([openai.id, openai.dimensions]).toEqual(['openai:text-embedding-3-small', 1536]);
    const compatible = createEmbedder('openai-compatible:http://localhost:11434/v1#nomic-embed-text', {
      ...config,
      openaiApiKey: undefined,
    });
    expect([compatible.id, compatible.dimensions]).toEqual(['openai-compatible:nomic-embed-text', 0]);
    const bedrock = createEmbedder('bedrock:amazon.titan-embed-text-v2:0', config);
    expect([bedrock.id, bedrock.dimensions]).toEqual(['bedrock:amazon.titan-embed-text-v2:0', 1024]);
  });

  it.each([
    ['bogus'],
    ['local:abc'],
    ['local:2'],
    ['openai:'],
    ['openai-compatible:localhost#model'],
    ['openai-compatible:http://localhost:11434/v1'],
    ['bedrock:cohere.embed-english-v3'],
  ])('rejects the spec %s with a ConfigError', (spec) => {
    expect(() => createEmbedder(spec, config)).toThrow(ConfigError);
  });

  it('asks for the API key when openai has none', () => {
    expect(() => createEmbedder('openai:text-embedding-3-small', { ...config, openaiApiKey: undefined })).toThrow(/OPENAI_API_KEY/);
  });
});
