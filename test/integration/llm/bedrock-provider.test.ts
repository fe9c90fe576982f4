import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBedrockProvider } from '../../../src/llm/providers/bedrock.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';
import { runProviderContract } from './provider-contract.js';

/** Model ids contain colons and dots: the URL path must carry them encoded. */
const MODEL_ID = 'anthropic.claude-3-5-sonnet-20241022-v2:0';

function bedrockAgainst(url: string, accessKeyId: string, modelId = MODEL_ID) {
  return createBedrockProvider({
    modelId,
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId, secretAccessKey: 'simulated-secret' },
  });
}

runProviderContract('bedrock', (url, credential) => bedrockAgainst(url, credential), {
  provider: 'bedrock',
  model: MODEL_ID,
  tokenFamily: 'default',
  authStatus: 403,
  promptCache: 'breakpoints',
});

describe('when the Bedrock adapter talks to the simulator with the SDK defaults', () => {
  let simulator: LlmSimulator;
  beforeAll(async () => {
    simulator = await startLlmSimulator({ contextWindow: 40 });
  });
  afterAll(() => simulator.close());

  it('speaks HTTP/2 (the AWS SDK default handler) with no test-only request handler', async () => {
    const provider = bedrockAgainst(simulator.url, 'simulated-key');
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 20 });
    provider.close();
    expect(simulator.stats.http2Requests).toBeGreaterThan(0);
  });

  it('recognises "Input is too long for requested model." from non-Claude models as an overflow without numbers', async () => {
    const provider = bedrockAgainst(simulator.url, 'simulated-key', 'amazon.nova-pro-v1:0');
    const error = await provider
      .complete({ messages: [{ role: 'user', content: 'tell me about churn '.repeat(30) }], maxOutputTokens: 20 })
      .catch((thrown: unknown) => thrown);
    provider.close();
    expect(error).toMatchObject({
      info: { kind: 'context_overflow', status: 400, reportedPromptTokens: undefined, reportedMaxTokens: undefined },
    });
  });
});
