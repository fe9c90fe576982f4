import { describe, expect, it } from 'vitest';
import { LlmError, WarehouseError } from '../../../src/errors/index.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { createOfflineProvider } from '../../../src/llm/providers/offline.js';
import { estimatePromptTokens } from '../../../src/llm/providers/prompt-size.js';
import { estimateTokens } from '../../../src/llm/tokens.js';

const request: LlmRequest = {
  system: 'You explore data.',
  messages: [{ role: 'user', content: 'Which tables exist?' }],
  maxOutputTokens: 500,
};

describe('when the offline provider answers', () => {
  it('returns what the brain wrote, with usage estimated as the prompt builder measures it', async () => {
    const seen: LlmRequest[] = [];
    const provider = createOfflineProvider({
      brain: (received) => {
        seen.push(received);
        return '{"action":"query","sql":"SELECT 1"}';
      },
    });
    const response = await provider.complete(request);
    expect(seen).toEqual([request]);
    expect(response).toMatchObject({
      text: '{"action":"query","sql":"SELECT 1"}',
      usage: {
        inputTokens: estimatePromptTokens(request, 'default'),
        outputTokens: estimateTokens('{"action":"query","sql":"SELECT 1"}', 'default'),
      },
      stopReason: { unified: 'end' },
      model: 'analyst',
    });
    expect(provider.provider).toBe('offline');
  });

  it('does not call the brain once the signal has fired', async () => {
    let calls = 0;
    const provider = createOfflineProvider({ brain: () => `${++calls}` });
    const controller = new AbortController();
    controller.abort();
    const error = await provider.complete({ ...request, signal: controller.signal }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).info.kind).toBe('aborted');
    expect(calls).toBe(0);
  });

  it("keeps the brain's typed errors and wraps anything else as a non-retryable LlmError", async () => {
    const warehouseFailure = new WarehouseError('table orders does not exist');
    const typed = createOfflineProvider({ brain: () => Promise.reject(warehouseFailure) });
    expect(await typed.complete(request).catch((thrown: unknown) => thrown)).toBe(warehouseFailure);
    const buggy = createOfflineProvider({ brain: () => JSON.parse('{') as string });
    const wrapped = await buggy.complete(request).catch((thrown: unknown) => thrown);
    expect(wrapped).toBeInstanceOf(LlmError);
    expect((wrapped as LlmError).info).toMatchObject({ provider: 'offline', isRetryable: false });
  });
});
