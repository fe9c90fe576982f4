/**
 * `npm run bench -- llm-cost`: what a discovery run costs at list prices, and what `assay estimate` said it
 * would. The e-commerce demo run at 60 steps goes through the LLM simulator (brain: the offline analyst)
 * on each wire format, with the official SDK of each — Anthropic (claude-sonnet-5-5), OpenAI (gpt-5.4),
 * Bedrock (us.anthropic.claude-sonnet-4-6) — asked through the text protocol or native tools, with prompt
 * caching off (no cache hints sent, the simulator serves no hits) or on. Every row is one run.
 *
 * Then three checks the issue sets: a 100-step run on the Sonnet-class default with tools and caching;
 * replies that ignore the format (every 5th reply turned to prose) on text and on tools; and the targets.
 * Writes bench-results/llm-cost.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderTable } from '../../src/cli/context.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { estimatePackRunCost } from '../../src/discovery/packs/pack-cost-estimate.js';
import { runAreas } from '../../src/discovery/phases/run-setting.js';
import { runDiscoveryLocally } from '../../src/fleet/local/runner.js';
import { defaultModelSpec, lookupModel } from '../../src/llm/catalog.js';
import { createOfflineAnalyst } from '../../src/llm/offline-analyst/index.js';
import type { LlmProvider } from '../../src/llm/port.js';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.js';
import { createBedrockProvider } from '../../src/llm/providers/bedrock.js';
import { createOpenAiProvider } from '../../src/llm/providers/openai.js';
import { startLlmSimulator } from '../../src/llm/simulator/index.js';
import { createHarness } from '../support/engine-harness.js';
import { round, writeBenchResult, type Bench } from './bench.js';

type Provider = 'anthropic' | 'openai' | 'bedrock';
type Protocol = 'text' | 'tools';

/** One run, in the fields the issue lists (and nothing else). */
export interface LlmCostRow {
  provider: Provider;
  protocol: Protocol;
  caching: boolean;
  calls: number;
  reformat_retries: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  estimate_usd: number;
}

const PROVIDERS: Provider[] = ['anthropic', 'openai', 'bedrock'];
const STEPS = 60;
const TARGET_STEPS = 100;
/** Replies turned to prose in the format-fault runs. */
const MALFORMED_EVERY = 5;

interface RunOptions {
  provider: Provider;
  protocol: Protocol;
  caching: boolean;
  steps: number;
  warehousePath: string;
  malformedEvery?: number;
}

function adapter(provider: Provider, model: string, url: string): LlmProvider & { close?(): void } {
  if (provider === 'anthropic') return createAnthropicProvider({ model, apiKey: 'bench-key', baseUrl: url });
  if (provider === 'openai') return createOpenAiProvider({ model, apiKey: 'bench-key', baseUrl: `${url}/v1` });
  return createBedrockProvider({
    modelId: model,
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench-secret' },
  });
}

async function measureRun(options: RunOptions): Promise<LlmCostRow & { status: string }> {
  const spec = defaultModelSpec(options.provider, 'strong');
  const { entry } = lookupModel(spec);
  const model = spec.slice(options.provider.length + 1);
  const analyst = createOfflineAnalyst();
  const simulator = await startLlmSimulator({
    contextWindow: entry.contextWindow,
    promptCaching: options.caching,
    ...(options.malformedEvery ? { malformedEvery: options.malformedEvery } : {}),
    brain: (call) =>
      analyst({ ...(call.system ? { system: call.system } : {}), messages: call.messages, maxOutputTokens: call.maxOutputTokens }),
  });
  const provider = adapter(options.provider, model, simulator.url);
  const harness = await createHarness(analyst, { warehousePath: options.warehousePath, llm: { provider, entry } });
  const protocolPreference = options.protocol === 'text' ? 'text' : 'auto';
  Object.assign(harness.deps.config, { llmProtocol: protocolPreference, promptCaching: options.caching });
  try {
    const created = await harness.newRun({ maxSteps: options.steps });
    await runDiscoveryLocally(harness.deps, created.id, { concurrency: 2 });
    const run = await harness.deps.store.getRun(created.id);
    if (!run) throw new Error(`run ${created.id} vanished`);
    const calls = run.telemetry.llm_calls;
    const pack = harness.deps.loadPack('ecommerce');
    const estimate = estimatePackRunCost({
      entry,
      pack,
      areas: runAreas(pack, run),
      maxSteps: options.steps,
      catalogTokens: run.telemetry.schema_tokens,
      protocol: protocolPreference,
    });
    return {
      provider: options.provider,
      protocol: options.protocol,
      caching: options.caching,
      calls: calls.length,
      reformat_retries: calls.filter((call) => (call.attempt ?? 1) > 1).length,
      input_tokens: calls.reduce((sum, call) => sum + (call.prompt_tokens_reported ?? call.prompt_tokens_estimated), 0),
      cached_input_tokens: calls.reduce((sum, call) => sum + (call.cache_read_tokens ?? 0), 0),
      output_tokens: calls.reduce((sum, call) => sum + call.output_tokens, 0),
      cost_usd: round(
        calls.reduce((sum, call) => sum + call.cost_usd, 0),
        4,
      ),
      estimate_usd: round(options.caching ? estimate.llm.cost_usd_cached : estimate.llm.cost_usd, 4),
      status: run.status,
    };
  } finally {
    await harness.close();
    provider.close?.();
    await simulator.close();
  }
}

function withoutStatus({ status: _status, ...row }: LlmCostRow & { status: string }): LlmCostRow {
  return row;
}

function share(part: number, whole: number): number {
  return whole === 0 ? 0 : round(part / whole, 3);
}

export const llmCostBench: Bench = {
  name: 'llm-cost',
  description: 'demo run cost at list prices through the simulator: 3 wire formats × text/tools × caching off/on, vs assay estimate',
  async run() {
    const directory = mkdtempSync(join(tmpdir(), 'assay-llm-cost-'));
    try {
      const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(directory, 'shop.duckdb') });
      const rows: LlmCostRow[] = [];
      for (const provider of PROVIDERS) {
        for (const protocol of ['text', 'tools'] as const) {
          for (const caching of [false, true]) {
            const measured = await measureRun({ provider, protocol, caching, steps: STEPS, warehousePath: demo.path });
            if (measured.status !== 'completed') throw new Error(`${provider}/${protocol}/${caching}: the run ended ${measured.status}`);
            rows.push(withoutStatus(measured));
            process.stdout.write(
              `  ${provider} ${protocol} caching=${caching}: $${measured.cost_usd} (estimate $${measured.estimate_usd})\n`,
            );
          }
        }
      }
      const hundred = withoutStatus(
        await measureRun({ provider: 'anthropic', protocol: 'tools', caching: true, steps: TARGET_STEPS, warehousePath: demo.path }),
      );
      const faults: LlmCostRow[] = [];
      for (const protocol of ['text', 'tools'] as const) {
        const measured = await measureRun({
          provider: 'anthropic',
          protocol,
          caching: false,
          steps: STEPS,
          warehousePath: demo.path,
          malformedEvery: MALFORMED_EVERY,
        });
        faults.push(withoutStatus(measured));
      }

      const row = (provider: Provider, protocol: Protocol, caching: boolean): LlmCostRow =>
        rows.find(
          (candidate) => candidate.provider === provider && candidate.protocol === protocol && candidate.caching === caching,
        ) as LlmCostRow;
      const targets = {
        hundred_step_run_usd: { measured: hundred.cost_usd, estimate: hundred.estimate_usd, target_at_most: 1 },
        reformat_retries_with_tools: rows
          .filter((candidate) => candidate.protocol === 'tools')
          .map((candidate) => candidate.reformat_retries),
        cached_share_with_caching: rows
          .filter((candidate) => candidate.caching)
          .map((candidate) => ({
            provider: candidate.provider,
            protocol: candidate.protocol,
            share: share(candidate.cached_input_tokens, candidate.input_tokens),
          })),
        cost_ratio_without_over_with_caching: PROVIDERS.flatMap((provider) =>
          (['text', 'tools'] as const).map((protocol) => ({
            provider,
            protocol,
            ratio: round(row(provider, protocol, false).cost_usd / row(provider, protocol, true).cost_usd, 2),
          })),
        ),
        estimate_error: rows.map((candidate) => ({
          provider: candidate.provider,
          protocol: candidate.protocol,
          caching: candidate.caching,
          error: round(candidate.estimate_usd / candidate.cost_usd - 1, 3),
        })),
      };
      const path = writeBenchResult('llm-cost', {
        steps: STEPS,
        models: Object.fromEntries(PROVIDERS.map((provider) => [provider, defaultModelSpec(provider, 'strong')])),
        rows,
        hundred_steps: hundred,
        format_faults: { malformed_every: MALFORMED_EVERY, rows: faults },
        targets,
      });
      const table = (entries: readonly LlmCostRow[]): string =>
        renderTable(
          ['provider', 'protocol', 'caching', 'calls', 'reformat retries', 'input tokens', 'cached', 'output tokens', 'cost', 'estimate'],
          entries.map((entry) => [
            entry.provider,
            entry.protocol,
            entry.caching ? 'on' : 'off',
            entry.calls,
            entry.reformat_retries,
            entry.input_tokens,
            `${entry.cached_input_tokens} (${Math.round(share(entry.cached_input_tokens, entry.input_tokens) * 100)} %)`,
            entry.output_tokens,
            `$${entry.cost_usd.toFixed(4)}`,
            `$${entry.estimate_usd.toFixed(4)}`,
          ]),
        );
      process.stdout.write(`${table(rows)}\n`);
      process.stdout.write(`${TARGET_STEPS} steps, anthropic, tools, caching on:\n${table([hundred])}\n`);
      process.stdout.write(`every ${MALFORMED_EVERY}th reply ignoring the format (anthropic, caching off):\n${table(faults)}\n`);
      process.stdout.write(`wrote ${path}\n`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
