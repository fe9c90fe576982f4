import { describe, expect, it } from 'vitest';
import { mapAnthropicStopReason } from '../../../src/llm/providers/anthropic.js';
import { mapBedrockStopReason } from '../../../src/llm/providers/bedrock.js';
import { mapOpenAiFinishReason } from '../../../src/llm/providers/openai.js';

describe('when mapping Anthropic stop_reason', () => {
  it.each([
    ['end_turn', 'end'],
    ['max_tokens', 'max_tokens'],
    ['stop_sequence', 'stop_sequence'],
    ['model_context_window_exceeded', 'context_window_exceeded'],
    ['refusal', 'content_filter'],
    ['tool_use', 'tool_use'],
    ['pause_turn', 'other'],
    [null, 'other'],
  ] as const)('maps %s to %s', (raw, unified) => {
    expect(mapAnthropicStopReason(raw)).toBe(unified);
  });
});

describe('when mapping OpenAI finish_reason', () => {
  it.each([
    ['stop', 'end'],
    ['length', 'max_tokens'],
    ['content_filter', 'content_filter'],
    ['tool_calls', 'tool_use'],
    [null, 'other'],
  ] as const)('maps %s to %s', (raw, unified) => {
    expect(mapOpenAiFinishReason(raw)).toBe(unified);
  });
});

describe('when mapping Bedrock stopReason', () => {
  it.each([
    ['end_turn', 'end'],
    ['max_tokens', 'max_tokens'],
    ['stop_sequence', 'stop_sequence'],
    ['content_filtered', 'content_filter'],
    ['guardrail_intervened', 'content_filter'],
    ['model_context_window_exceeded', 'context_window_exceeded'],
    ['malformed_model_output', 'other'],
    [undefined, 'other'],
  ] as const)('maps %s to %s', (raw, unified) => {
    expect(mapBedrockStopReason(raw)).toBe(unified);
  });
});
