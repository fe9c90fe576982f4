import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { RunCostEstimate } from '../../../src/discovery/cost-estimate.js';

function captureOutput() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (stdout.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
  return { stdout, stderr };
}

describe('when running assay estimate', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('prints a JSON estimate whose exploration grows with the steps asked for', async () => {
    const output = captureOutput();
    const code = await main([
      'node',
      'assay',
      'estimate',
      '--llm',
      'anthropic:claude-sonnet-4-6',
      '--max-steps',
      '10',
      '--pack',
      'ecommerce',
      '--json',
    ]);
    const short = JSON.parse(output.stdout.join('')) as RunCostEstimate;
    output.stdout.length = 0;
    await main(['node', 'assay', 'estimate', '--llm', 'anthropic:claude-sonnet-4-6', '--max-steps', '40', '--pack', 'ecommerce', '--json']);
    const long = JSON.parse(output.stdout.join('')) as RunCostEstimate;
    expect(code).toBe(0);
    expect(short.llm.model).toBe('anthropic:claude-sonnet-4-6');
    expect(short.breakdown.exploration.calls).toBe(10);
    expect(long.breakdown.exploration.input_tokens / 40).toBeGreaterThan(short.breakdown.exploration.input_tokens / 10);
    expect(short.breakdown.analysis.calls).toBeGreaterThan(0);
  });

  it('prints a table with one row per phase and a total', async () => {
    const output = captureOutput();
    await main(['node', 'assay', 'estimate', '--llm', 'openai:gpt-5.4', '--max-steps', '5']);
    const text = output.stdout.join('');
    for (const phase of ['exploration', 'analysis', 'verification', 'recommendations', 'total']) expect(text).toContain(phase);
    expect(text).toContain('cost without caching');
    expect(text).toContain('cost with caching');
    expect(text).toMatch(/prompt caching \(on by default\): \d+ % of the input read from the cache, \$[\d.]+ instead of \$[\d.]+/);
  });

  it('gives the cost with and without caching in the JSON, the cached one lower for a model that caches', async () => {
    const output = captureOutput();
    await main(['node', 'assay', 'estimate', '--llm', 'anthropic:claude-sonnet-5-5', '--max-steps', '30', '--json']);
    const estimate = JSON.parse(output.stdout.join('')) as RunCostEstimate;
    expect(estimate.llm.cache_read_tokens).toBeGreaterThan(0);
    expect(estimate.llm.cost_usd_cached).toBeLessThan(estimate.llm.cost_usd);
  });

  it('warns about a deprecated model, naming its end of life', async () => {
    const output = captureOutput();
    await main(['node', 'assay', 'estimate', '--llm', 'openai:o3', '--max-steps', '5', '--json']);
    expect(output.stderr.join('')).toMatch(/model "openai:o3" is deprecated by its vendor: choose a current model, e.g. openai:gpt-5.4/);
  });

  it('warns about an unknown model and rejects a bad step count with the validation exit code', async () => {
    const output = captureOutput();
    await main(['node', 'assay', 'estimate', '--llm', 'openai:gpt-imaginary', '--max-steps', '5', '--json']);
    expect(output.stderr.join('')).toContain('not in the catalog');
    expect(await main(['node', 'assay', 'estimate', '--max-steps', 'many'])).toBe(2);
  });
});
