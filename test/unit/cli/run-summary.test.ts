import { describe, expect, it } from 'vitest';
import { usageLine } from '../../../src/cli/run-summary.js';
import type { DiscoveryResult, Run } from '../../../src/domain/index.js';

const call = (prompt: number, output: number) => ({ prompt_tokens_estimated: prompt, output_tokens: output, cost_usd: 0 });

describe('the usage line after a run', () => {
  it('writes token counts with thousands separators and an offline run’s cost as none', () => {
    const result = {
      recommendations: [],
      telemetry: { llm_calls: [call(8_251, 1_112), call(7_522, 1_112)] },
    } as unknown as DiscoveryResult;
    const run = { settings: { llm: 'offline:analyst' } } as unknown as Run;
    expect(usageLine(run, result)).toBe(
      'recommendations: 0 · LLM calls: 2 · tokens in/out: 15,773/2,224 · largest prompt: 8,251 tokens · cost: none (offline model)',
    );
  });
});
