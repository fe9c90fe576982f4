/**
 * A run document the size of a finished discovery: 5 areas with 4 verified insights each (claims,
 * metrics, picked and dropped steps), 8 recommendations, 150 LLM calls in the telemetry, and the 24
 * exploration steps it came from. Deterministic, so two benchmarks see the same document.
 */
import { explorationStepSchema, runSchema, type ExplorationStep, type LlmCallRecord, type Run } from '../../src/domain/index.js';

export const REALISTIC_SHAPE = { steps: 24, areas: 5, insightsPerArea: 4, llmCalls: 150, recommendations: 8 } as const;

const AREAS = ['conversion', 'retention', 'revenue', 'fulfilment', 'support'];
const PHASES = ['exploration', 'sql_fix', 'analysis', 'verification', 'recommendations'] as const;

function iso(base: number, offsetMs: number): string {
  return new Date(base + offsetMs).toISOString();
}

export function realisticLlmCall(index: number): LlmCallRecord {
  const phase = PHASES[index % PHASES.length] as (typeof PHASES)[number];
  return {
    phase,
    model: phase === 'sql_fix' ? 'offline:fast' : 'offline:analyst',
    prompt_tokens_estimated: 3_000 + ((index * 577) % 4_000),
    prompt_tokens_reported: index % 3 === 0 ? null : 3_100 + ((index * 577) % 4_000),
    output_tokens: 200 + ((index * 131) % 900),
    context_window: 200_000,
    max_output_tokens: 4_096,
    cost_usd: Math.round(((index * 37) % 100) * 1e-4 * 1e6) / 1e6,
    latency_ms: 40 + ((index * 97) % 800),
    shrunk: index % 17 === 0,
    overflow_retry: false,
    ...(phase === 'analysis' || phase === 'verification' ? { area: AREAS[index % AREAS.length] as string } : {}),
    ...(phase === 'exploration' ? { step: 1 + (index % REALISTIC_SHAPE.steps) } : {}),
    tier: phase === 'sql_fix' ? 'fast' : 'strong',
  };
}

export function realisticRun(id: string, projectId = 'shop'): Run {
  const base = Date.parse('2026-11-23T09:00:00.000Z');
  const areas = AREAS.slice(0, REALISTIC_SHAPE.areas).map((area, areaIndex) => {
    const insights = Array.from({ length: REALISTIC_SHAPE.insightsPerArea }, (_, n) => {
      const value = 0.1 + ((areaIndex * 7 + n * 3) % 20) / 40;
      return {
        id: `${area}-${n + 1}`,
        analysis_area: area,
        name: `${area} segment ${n + 1} converts ${Math.round(value * 100)} % below the rest`,
        description: `Customers in segment ${n + 1} of ${area} show a lower rate than all other customers over the last two quarters; the gap holds across channels.`,
        severity: (['critical', 'high', 'medium', 'low'] as const)[n % 4],
        affected_count: 1_000 + areaIndex * 311 + n * 97,
        risk_score: 0.4 + n / 20,
        confidence: 0.7,
        metrics: { rate: value, rest_rate: value + 0.12, customers: 1_000 + n, channel: 'web', flagged: n % 2 === 0, missing: null },
        indicators: ['rate below the rest', 'gap holds per channel', 'repeat orders fall'],
        target_segment: `segment_${n + 1}`,
        source_steps: [1 + n, 5 + n, 9 + areaIndex],
        claim: {
          metric: {
            kind: 'rate' as const,
            table: 'main.orders',
            condition: { column: 'status', op: '=' as const, value: 'paid' },
            filters: [{ column: 'created_at', op: '>=' as const, value: '2026-01-01' }],
            label: 'paid order rate',
          },
          segment: { column: 'segment', value: `segment_${n + 1}` },
          comparison: { kind: 'rest' as const },
          value,
          comparison_value: value + 0.12,
          direction: 'lower' as const,
        },
        discovered_at: iso(base, 60_000 + n * 1_000),
        validation: {
          status: 'confirmed' as const,
          verified_count: 1_000 + areaIndex * 311 + n * 97,
          original_count: 1_000 + areaIndex * 311 + n * 97,
          query: `SELECT count(*) FILTER (WHERE "status" = 'paid') / count(*) FROM "main"."orders" WHERE "segment" = 'segment_${n + 1}'`,
          reasoning: 'recounted from the warehouse; within 2 % of the claimed value and the direction holds',
          validated_at: iso(base, 90_000 + n * 1_000),
          lookups_used: 1,
          claim_check: {
            value: value + 0.001,
            comparison_value: value + 0.121,
            direction_holds: true,
            relative_error: 0.004,
            segment_rows: 1_000 + n,
            sql: 'SELECT avg(CASE WHEN "status" = \'paid\' THEN 1 ELSE 0 END) FROM "main"."orders" GROUP BY "segment" = \'x\'',
          },
        },
      };
    });
    return {
      area_id: area,
      area_name: `${area[0]?.toUpperCase()}${area.slice(1)}`,
      status: 'completed' as const,
      insight_ids: insights.map((insight) => insight.id),
      selected_steps: Array.from({ length: 8 }, (_, n) => ({
        step: 1 + ((areaIndex + n * 3) % 24),
        score: 0.55,
        source: 'vector' as const,
      })),
      dropped_steps: Array.from({ length: 14 }, (_, n) => ({
        step: 1 + ((areaIndex + n * 5 + 1) % 24),
        score: 0.2 - n / 100,
        reason: 'below_min_score' as const,
      })),
      query_results_chars: 12_000 + areaIndex * 100,
      prompt_tokens: 6_000,
      duration_ms: 410.5,
      insights,
    };
  });
  const llmCalls = Array.from({ length: REALISTIC_SHAPE.llmCalls }, (_, index) => realisticLlmCall(index));
  const usageByPhase: Record<string, Record<string, { input_tokens: number; output_tokens: number; cost_usd: number; calls: number }>> = {};
  for (const call of llmCalls) {
    const byModel = usageByPhase[call.phase] ?? {};
    const totals = byModel[call.model] ?? { input_tokens: 0, output_tokens: 0, cost_usd: 0, calls: 0 };
    byModel[call.model] = {
      input_tokens: totals.input_tokens + call.prompt_tokens_estimated,
      output_tokens: totals.output_tokens + call.output_tokens,
      cost_usd: totals.cost_usd + call.cost_usd,
      calls: totals.calls + 1,
    };
    usageByPhase[call.phase] = byModel;
  }
  return runSchema.parse({
    id,
    project_id: projectId,
    status: 'running',
    phase: 'validation',
    phase_detail: 'verifying insights',
    progress: 70,
    settings: { max_steps: 24, min_steps: 0, llm: 'offline:analyst', pack: 'ecommerce', analysis_budget_tokens: 200_000 },
    steps_completed: REALISTIC_SHAPE.steps,
    exploration_done_reason: 'max_steps',
    counters: { total_queries: 23, successful_queries: 22, failed_queries: 1, insights_found: 20 },
    areas,
    context: { previous_context: 'Earlier runs found a conversion gap on mobile.', warehouse_hash: 'a'.repeat(64), catalog_tokens: 2_400 },
    schema_budget: { lookups_used: 3, searches_used: 2, fetched: ['main.orders', 'main.customers', 'main.sessions'] },
    recommendations: Array.from({ length: REALISTIC_SHAPE.recommendations }, (_, n) => ({
      id: `rec-${n + 1}`,
      title: `Win back segment ${n + 1}`,
      description: 'Target the segment with a reminder sequence and a checkout fix; measure the paid rate weekly.',
      priority: 1 + (n % 5),
      category: 'conversion',
      target_segment: `segment_${n + 1}`,
      segment_size: 1_000 + n,
      expected_impact: { metric: 'paid order rate', estimated_improvement: '+3 pp', reasoning: 'closes a quarter of the gap' },
      actions: ['send a reminder after 24 h', 'fix the address form on mobile'],
      related_insight_ids: [`conversion-${1 + (n % 4)}`, `retention-${1 + (n % 4)}`],
      effort: 'medium',
      success_metrics: ['paid order rate', 'repeat order rate'],
      confidence: 0.6,
    })),
    telemetry: {
      llm_calls: llmCalls,
      usage_by_phase: usageByPhase,
      usage_by_tier: { strong: { input_tokens: 400_000, output_tokens: 80_000, cost_usd: 0.5, calls: 120 } },
      schema_tokens: 2_400,
      schema_table_count: 9,
      schema_lookup_calls: 3,
      schema_search_calls: 2,
      analysis_step_index_upserts: 24,
      analysis_step_search_calls: 5,
      analysis_steps_dropped: 70,
      phase_durations_ms: { prepare: 120.5, exploration: 900.1, exploration_sql: 300.2, analysis: 400.3 },
    },
    created_at: iso(base, 0),
    started_at: iso(base, 10),
    updated_at: iso(base, 100_000),
  });
}

export function realisticStep(runId: string, step: number): ExplorationStep {
  const rows = Array.from({ length: 20 }, (_, row) => ({
    segment: `segment_${row % 5}`,
    orders: 100 + row * 7,
    paid_rate: 0.5 + row / 100,
  }));
  return explorationStepSchema.parse({
    run_id: runId,
    step,
    action: 'query',
    timestamp: new Date(Date.parse('2026-11-23T09:00:00.000Z') + step * 1_000).toISOString(),
    thinking: 'Compare the paid rate per segment against the rest to see where conversion falls.',
    query_purpose: `paid rate per segment, cut ${step}`,
    query: 'SELECT segment, count(*) AS orders, avg(paid) AS paid_rate FROM main.orders GROUP BY segment ORDER BY orders DESC',
    executed_query: 'SELECT segment, count(*) AS orders, avg(paid) AS paid_rate FROM main.orders GROUP BY segment ORDER BY orders DESC',
    row_count: rows.length,
    truncated: false,
    columns: [
      { name: 'segment', type: 'VARCHAR' },
      { name: 'orders', type: 'BIGINT' },
      { name: 'paid_rate', type: 'DOUBLE' },
    ],
    rows,
    elapsed_ms: 12.5,
    summary: 'segment_3 has the lowest paid rate',
    usage: { input_tokens: 3_000, output_tokens: 300, prompt_tokens_estimated: 3_000, cost_usd: 0, llm_calls: 1 },
  });
}

/**
 * `base` with areas holding the given insights, each picked by index from all of `base`'s insights
 * (wrapping around): for tests of how stores keep a run's insights.
 */
export function runWithInsights(base: Run, areas: number[][]): Run {
  const pool = base.areas.flatMap((area) => area.insights);
  return runSchema.parse({
    ...base,
    areas: areas.map((picks, index) => ({
      ...(base.areas[index % base.areas.length] as Run['areas'][number]),
      area_id: `area-${index}`,
      insights: picks.map((pick) => pool[pick % pool.length]),
    })),
  });
}
