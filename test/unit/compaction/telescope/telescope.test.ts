import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactResult } from '../../../../src/compaction/compact-result.js';
import { DATA_CLOSE, DATA_OPEN } from '../../../../src/llm/data-fence.js';
import {
  CACHE_KEY_HASH_CHARS,
  MAX_NODES_PER_EXPANSION,
  buildTelescopeTree,
  compactCacheKey,
  createCompactor,
  expand,
  firstView,
  newDrillDownState,
  parseExpandRequest,
  parseStrategyRegistry,
  shippedStrategies,
  tableFamily,
  tablesRead,
  type Summarizer,
} from '../../../../src/compaction/telescope/index.js';
import type { ExplorationStep, Row } from '../../../../src/domain/index.js';
import { ConfigError } from '../../../../src/errors/index.js';
import { estimateTokens } from '../../../../src/llm/tokens.js';
import { createEmbeddedRunStore } from '../../../../src/store/index.js';
import type { RunStore } from '../../../../src/store/port.js';

function queryStep(step: number, sql: string, purpose: string, rows: Row[]): ExplorationStep {
  const columns = Object.keys(rows[0] ?? {}).map((name) => ({ name, type: typeof rows[0]?.[name] === 'number' ? 'DOUBLE' : 'VARCHAR' }));
  return {
    run_id: 'r1',
    step,
    action: 'query',
    timestamp: '2026-11-24T00:00:00.000Z',
    thinking: '',
    query_purpose: purpose,
    query: sql,
    executed_query: sql,
    fix_attempts: 0,
    fixed: false,
    row_count: rows.length,
    columns,
    rows,
    compact: compactResult(columns, rows),
  };
}

function demoSteps(): ExplorationStep[] {
  const byCategory = ['Network', 'Hardware', 'Software', 'Database', 'Inquiry'].map((category, index) => ({
    category,
    tickets: 400 - index * 60,
    avg_days: 1 + index * 0.7,
  }));
  const byMonth = Array.from({ length: 12 }, (_, index) => ({
    month: `2024-${String(index + 1).padStart(2, '0')}`,
    opened: 100 + index * 9,
  }));
  const byAssignee = Array.from({ length: 30 }, (_, index) => ({ assignee: `agent ${index}`, closed: 50 + ((index * 37) % 41) }));
  return [
    queryStep(
      1,
      'SELECT category, count(*) AS tickets, avg(closed_at - opened_at) AS avg_days FROM main.incidents GROUP BY 1',
      'volume and resolution time by category',
      byCategory,
    ),
    queryStep(
      2,
      "SELECT date_trunc('month', opened_at) AS month, count(*) AS opened FROM main.incidents GROUP BY 1",
      'tickets opened per month',
      byMonth,
    ),
    queryStep(
      3,
      'SELECT u.name AS assignee, count(*) AS closed FROM main.incidents i JOIN "main"."users" u ON u.id = i.assigned_to GROUP BY 1',
      'closed tickets per assignee',
      byAssignee,
    ),
    {
      run_id: 'r1',
      step: 4,
      action: 'lookup_schema',
      timestamp: '2026-11-24T00:00:00.000Z',
      thinking: '',
      query_purpose: 'columns',
      fix_attempts: 0,
      fixed: false,
      tables: ['main.users'],
    },
  ];
}

const AREAS = [
  { id: 'durations', name: 'Durations and throughput', steps: [1, 3] },
  { id: 'trends', name: 'Trends over time', steps: [2] },
];

let dir: string;
let store: RunStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-telescope-'));
  store = createEmbeddedRunStore({ dir });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function compactor(summarizers: Parameters<typeof createCompactor>[0]['summarizers'] = {}) {
  return createCompactor({ registry: shippedStrategies(), cache: store, source: 'wh-abc123', family: 'default', summarizers });
}

describe('the strategy registry', () => {
  it('ships the four strategies the tree uses, each versioned with its tier and bounds', () => {
    const names = shippedStrategies()
      .all()
      .map((strategy) => `${strategy.name}@${strategy.version}:${strategy.tier}`);
    expect(names).toEqual(
      expect.arrayContaining(['result_digest@1:none', 'schema_signature@1:none', 'audit_findings@1:none', 'narrative_summary@1:fast']),
    );
  });

  it('refuses a registry that lacks a required strategy, repeats one, or gives a model strategy no prompt', () => {
    const base = shippedStrategies().all();
    expect(() => parseStrategyRegistry({ strategies: base.filter((strategy) => strategy.name !== 'schema_signature') })).toThrow(
      /"schema_signature" is missing/,
    );
    expect(() => parseStrategyRegistry({ strategies: [...base, base[0]] })).toThrow(/defined twice/);
    const noPrompt = base.map((strategy) => (strategy.name === 'narrative_summary' ? { ...strategy, prompt: undefined } : strategy));
    expect(() => parseStrategyRegistry({ strategies: noPrompt }, 'custom.json')).toThrow(ConfigError);
    expect(() => parseStrategyRegistry({ strategies: noPrompt }, 'custom.json')).toThrow(
      /custom\.json: strategies\.3\.prompt: a strategy that uses a model needs/,
    );
  });
});

describe('content-addressed cache keys', () => {
  const key = (overrides: Partial<Parameters<typeof compactCacheKey>[0]> = {}) =>
    compactCacheKey({ source: 'wh:1', strategy: 'result_digest', strategyVersion: 1, level: 1, content: 'rows', ...overrides });

  it('follow compact:{source}:{version}:{strategy}:{hash} with a widened hash and no stray colon in the source', () => {
    expect(key()).toMatch(new RegExp(`^compact:wh_1:v1:result_digest:[0-9a-f]{${CACHE_KEY_HASH_CHARS}}$`));
  });

  it('change with the content, the strategy, its version and the level, and only then', () => {
    const keys = [key(), key({ content: 'rows!' }), key({ strategy: 'narrative_summary' }), key({ strategyVersion: 2 }), key({ level: 2 })];
    expect(new Set(keys).size).toBe(5);
    expect(key()).toBe(key());
  });
});

describe('when a run’s steps are compacted into a telescope tree', () => {
  it('builds L0 raw, L1 per query step, L2 per area and table family, and one index line per group', async () => {
    const tree = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: compactor(), family: 'default' });
    expect(tree.counts).toEqual({ l0: 3, l1: 3, l2: 2 + 2, ln: 1 });
    const durations = tree.nodes.get(tree.areaGroups.get('durations') ?? '');
    expect(durations?.children).toEqual([tree.stepNodes.get(1), tree.stepNodes.get(3)]);
    expect(durations?.text).toContain('volume and resolution time by category');
    expect(tree.index.text.split('\n')).toHaveLength(4);
    expect(tree.index.text).toContain('tables main.incident*: 3 steps');
    expect(tree.index.text).toContain('tables main.user*: 1 steps');
  });

  it('gives the same data the same node ids in every build', async () => {
    const first = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: compactor(), family: 'default' });
    const second = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: compactor(), family: 'default' });
    expect([...second.nodes.keys()].sort()).toEqual([...first.nodes.keys()].sort());
    const changed = demoSteps();
    changed[1] = queryStep(2, 'SELECT 1 AS x FROM main.incidents', 'tickets opened per month', [{ x: 1 }]);
    const third = await buildTelescopeTree({ steps: changed, areas: AREAS, compactor: compactor(), family: 'default' });
    expect(third.stepNodes.get(1)).toBe(first.stepNodes.get(1));
    expect(third.stepNodes.get(2)).not.toBe(first.stepNodes.get(2));
  });

  it('reuses every unchanged node from the store on a second run, counting hits and misses per strategy', async () => {
    const first = compactor();
    await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: first, family: 'default' });
    expect(first.stats().result_digest).toMatchObject({ cache_hits: 0, cache_misses: 3 });
    const second = compactor();
    await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: second, family: 'default' });
    expect(second.stats().result_digest).toMatchObject({ cache_hits: 3, cache_misses: 0 });
    expect(second.stats().schema_signature).toMatchObject({ cache_hits: 3, cache_misses: 0 });
    expect(second.stats().schema_signature?.saved_pct).toBeGreaterThan(0);
  });

  it('adds narratives only when a fast model is configured, and asks it once per unchanged content', async () => {
    const prompts: string[] = [];
    const fast: Summarizer = async ({ prompt }) => {
      prompts.push(prompt);
      return `summary ${prompts.length}`;
    };
    const without = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: compactor(), family: 'default' });
    expect(without.nodes.get(without.stepNodes.get(1) ?? '')?.text).not.toContain('narrative:');
    const withFast = compactor({ fast });
    const tree = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: withFast, family: 'default' });
    expect(tree.nodes.get(tree.stepNodes.get(1) ?? '')?.text).toContain('narrative: summary');
    expect(prompts[0]).toContain('volume and resolution time by category');
    // the evidence a narrative is written from is query results: fenced as data
    expect(prompts[0]).toMatch(new RegExp(`\\):\\n${DATA_OPEN}\\n[\\s\\S]*\\n${DATA_CLOSE}$`));
    const calls = prompts.length;
    expect(withFast.stats().narrative_summary?.llm_calls).toBe(calls);
    const again = compactor({ fast });
    await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: again, family: 'default' });
    expect(prompts).toHaveLength(calls);
    expect(again.stats().narrative_summary).toMatchObject({ llm_calls: 0, cache_misses: 0 });
  });
});

describe('drilling down', () => {
  it('first shows the index, the area group and as many top-ranked step abstracts as the share allows', async () => {
    const tree = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: compactor(), family: 'default' });
    const state = newDrillDownState();
    const roomy = firstView(tree, 'durations', [3, 1], { budgetTokens: 100_000, referenceTokens: 100_000 }, 'default', state);
    expect(roomy).toContain(`=== ${tree.stepNodes.get(3)} (step 3) ===\n${DATA_OPEN}\n`);
    expect(roomy.split(DATA_OPEN).length).toBe(roomy.split(DATA_CLOSE).length);
    expect(roomy).toContain(`=== ${tree.stepNodes.get(1)} (step 1) ===`);
    const tight = firstView(tree, 'durations', [3, 1], { budgetTokens: 100_000, referenceTokens: 600 }, 'default', newDrillDownState());
    expect(tight).toContain(`=== ${tree.areaGroups.get('durations')}`);
    expect(tight).not.toContain('=== L1-');
  });

  it('expands a group to its step abstracts, a shown step to its raw rows, within the budget, never twice', async () => {
    const tree = await buildTelescopeTree({ steps: demoSteps(), areas: AREAS, compactor: compactor(), family: 'default' });
    const state = newDrillDownState();
    firstView(tree, 'durations', [3, 1], { budgetTokens: 100_000, referenceTokens: 600 }, 'default', state);
    const group = tree.areaGroups.get('durations') ?? '';
    const opened = expand(tree, [group, 'L1-000000000000'], 100_000, 'default', state);
    expect(opened.shown).toEqual([tree.stepNodes.get(1), tree.stepNodes.get(3)]);
    expect(opened.refused).toEqual([{ id: 'L1-000000000000', reason: 'unknown' }]);
    const again = expand(tree, [group], 100_000, 'default', state);
    expect(again.shown).toEqual([]);
    expect(again.text).toContain('already shown');
    const raw = expand(tree, [tree.stepNodes.get(3) ?? ''], 100_000, 'default', state);
    expect(raw.text).toContain('"agent 29"');
    const capped = expand(tree, [tree.stepNodes.get(2) ?? ''], 20, 'default', newDrillDownState());
    expect(capped.refused[0]?.reason).toBe('over_budget');
    expect(estimateTokens(capped.text, 'default')).toBeLessThan(200);
    const many = expand(
      tree,
      Array.from({ length: MAX_NODES_PER_EXPANSION + 2 }, () => group),
      100_000,
      'default',
      newDrillDownState(),
    );
    expect(many.refused.filter((refusal) => refusal.reason === 'over_node_limit')).toHaveLength(2);
  });

  it('reads an expand request only when the whole reply is one', () => {
    expect(parseExpandRequest('{"expand": ["L2-0123456789ab", "bogus"]}')).toEqual(['L2-0123456789ab']);
    expect(parseExpandRequest('```json\n{"expand":["L1-0123456789ab"]}\n```')).toEqual(['L1-0123456789ab']);
    expect(parseExpandRequest('{"insights": []}')).toBeNull();
    expect(parseExpandRequest('Here: {"expand": ["L1-0123456789ab"]} and more')).toBeNull();
  });
});

describe('reading tables from SQL', () => {
  it('finds quoted, qualified and joined tables and groups them into families', () => {
    expect(tablesRead('SELECT * FROM main.order_items oi JOIN "main"."Orders" o ON 1=1 LEFT JOIN users u ON 1=1')).toEqual([
      'main.order_items',
      'main.orders',
      'users',
    ]);
    expect(['main.order_items', 'main.orders', 'main.order'].map(tableFamily)).toEqual(['main.order', 'main.order', 'main.order']);
    expect(tableFamily('sessions')).toBe('session');
  });
});
