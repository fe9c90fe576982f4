import { describe, expect, it } from 'vitest';
import { anthropicDialect } from '../../../src/llm/simulator/anthropic-dialect.js';
import { bedrockDialect } from '../../../src/llm/simulator/bedrock-dialect.js';
import { SimulatedRequestError } from '../../../src/llm/simulator/dialect.js';
import { openAiDialect } from '../../../src/llm/simulator/openai-dialect.js';

describe('when reading the caller credential', () => {
  it('takes the access key id out of a SigV4 Authorization header, or a Bedrock bearer token', () => {
    const sigV4 =
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261123/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc';
    expect(bedrockDialect.credential({ authorization: sigV4 })).toBe('AKIDEXAMPLE');
    expect(bedrockDialect.credential({ authorization: 'Bearer bedrock-api-key' })).toBe('bedrock-api-key');
    expect(bedrockDialect.credential({})).toBeUndefined();
  });

  it('takes x-api-key for Anthropic and the bearer token for OpenAI', () => {
    expect(anthropicDialect.credential({ 'x-api-key': 'sk-ant' })).toBe('sk-ant');
    expect(openAiDialect.credential({ authorization: 'Bearer sk-openai' })).toBe('sk-openai');
    expect(openAiDialect.credential({})).toBeUndefined();
  });
});

describe('when parsing requests', () => {
  it('flattens text blocks and ignores non-text blocks', () => {
    const call = anthropicDialect.parseCall(
      {
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image', source: {} },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      },
      undefined,
    );
    expect(call.messages).toEqual([{ role: 'user', content: 'a\nb' }]);
  });

  it('takes the Bedrock model from the path and the cap from inferenceConfig', () => {
    const call = bedrockDialect.parseCall(
      { messages: [{ role: 'user', content: [{ text: 'hi' }] }], inferenceConfig: { maxTokens: 33 } },
      'anthropic.claude-3-5-sonnet-20241022-v2:0',
    );
    expect(call).toMatchObject({ api: 'bedrock', model: 'anthropic.claude-3-5-sonnet-20241022-v2:0', maxOutputTokens: 33 });
  });

  it('rejects a body without messages, naming the field', () => {
    expect(() => openAiDialect.parseCall({ model: 'gpt-5.4' }, undefined)).toThrow(SimulatedRequestError);
    expect(() => openAiDialect.parseCall({ model: 'gpt-5.4' }, undefined)).toThrow(/messages/);
  });
});
