/**
 * Telescoped evidence for one area's analysis (issue 12, `compaction.evidence: telescope`): the run's
 * telescope tree built through the content-addressed cache in the run store, a first view within the
 * area budget, and the expansions the model asks for with `{"expand": [ids]}`. Narratives are written by
 * the fast tier only when a real fast model is configured (the offline analyst writes none).
 */
import {
  buildTelescopeTree,
  createCompactor,
  expand,
  expandInstructions,
  firstView,
  newDrillDownState,
  shippedStrategies,
  type Compactor,
  type DrillDownState,
  type Summarizer,
  type TelescopeTree,
  type AreaFindings,
  parseExpandRequest,
} from '../../compaction/telescope/index.js';
import type { ExplorationStep, TelescopeTelemetry } from '../../domain/index.js';
import type { PromptSection } from '../../llm/prompt-builder.js';
import { estimateTokens, type TokenFamily } from '../../llm/tokens.js';
import { z } from 'zod';
import type { AnswerSpec, AnswerTool } from '../../llm/structured-output.js';
import { modelFor, type DiscoveryDeps } from '../context.js';
import { askForAnswer, askLlm, type AskForAnswerResult, type AskOptions } from '../llm-gateway.js';

export interface TelescopeSession {
  tree: TelescopeTree;
  compactor: Compactor;
  state: DrillDownState;
  /** The text that replaces `{{QUERY_RESULTS}}`. */
  firstViewText: string;
}

function fastSummarizer(deps: DiscoveryDeps, runId: string, areaId: string): Summarizer | undefined {
  const model = modelFor(deps, 'compaction');
  // the offline analyst cannot write narratives; a run without a real fast model keeps deterministic nodes only
  if (model.binding.provider.provider === 'offline') return undefined;
  return async ({ prompt, maxOutputTokens, signal }) =>
    (
      await askLlm(deps, {
        runId,
        ...model,
        phase: 'compaction',
        area: areaId,
        maxOutputTokens,
        signal,
        sections: [{ id: 'compaction', role: 'user', text: prompt, priority: 100, shrink: 'truncate', minTokens: 200 }],
      })
    ).text;
}

export async function openTelescope(
  deps: DiscoveryDeps,
  input: {
    runId: string;
    areaId: string;
    areaName: string;
    source: string;
    steps: readonly ExplorationStep[];
    rankedSteps: readonly number[];
    budgetTokens: number;
    referenceTokens: number;
    family: TokenFamily;
    signal?: AbortSignal;
  },
): Promise<TelescopeSession> {
  const compactor = runCompactor(deps, input.runId, input.areaId, input.source, input.family);
  const tree = await buildTelescopeTree({
    steps: input.steps,
    areas: [{ id: input.areaId, name: input.areaName, steps: input.rankedSteps }],
    compactor,
    family: input.family,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const state = newDrillDownState();
  const view = firstView(
    tree,
    input.areaId,
    input.rankedSteps,
    { budgetTokens: input.budgetTokens, referenceTokens: input.referenceTokens },
    input.family,
    state,
  );
  return { tree, compactor, state, firstViewText: `${expandInstructions(deps.config.compaction.maxExpansions)}\n\n${view}` };
}

/**
 * Telescoped evidence for the recommendations: the run's tree with one `audit_findings` node per
 * area (each insight's claim, recount and verification status, citing its steps' L1 nodes). The
 * first view is those findings; the model may expand a cited step to see the digest behind a finding.
 */
export async function openFindingsTelescope(
  deps: DiscoveryDeps,
  input: {
    runId: string;
    source: string;
    steps: readonly ExplorationStep[];
    findings: readonly AreaFindings[];
    family: TokenFamily;
    signal?: AbortSignal;
  },
): Promise<TelescopeSession> {
  const compactor = runCompactor(deps, input.runId, 'recommendations', input.source, input.family);
  const tree = await buildTelescopeTree({
    steps: input.steps,
    areas: [],
    findings: input.findings,
    compactor,
    family: input.family,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const state = newDrillDownState();
  const findingNodes = [...tree.findingGroups.values()].map((id) => tree.nodes.get(id)).filter((node) => node !== undefined);
  for (const node of findingNodes) state.shown.add(node.id);
  const view = findingNodes.map((node) => `[${node.id}] ${node.text}`).join('\n\n') || '(no findings)';
  return {
    tree,
    compactor,
    state,
    firstViewText: `Verified findings, with the exploration steps each one cites as [node ids]:\n\n${view}\n\n${expandInstructions(deps.config.compaction.maxExpansions)}`,
  };
}

export type DrillDownReply<T> = { kind: 'answer'; value: T } | { kind: 'expand'; ids: string[] };

/** A node id as the tree writes them (`L1-3f9a2c1b04de`). */
const NODE_ID = /^L[0-3]-[0-9a-f]{12}$/;

const EXPAND_TOOL: AnswerTool<DrillDownReply<never>> = {
  name: 'expand',
  description: 'See the level below these evidence nodes before answering.',
  schema: z.object({ expand: z.array(z.string()).min(1).describe('Node ids exactly as shown, e.g. "L1-3f9a2c1b04de".') }),
  accept: (input) => {
    const ids = (input as { expand?: unknown }).expand;
    if (!Array.isArray(ids)) return { ok: false, reason: 'the arguments of "expand" have no "expand" array of node ids' };
    return { ok: true, value: { kind: 'expand', ids: ids.filter((id): id is string => typeof id === 'string' && NODE_ID.test(id)) } };
  },
};

/** The phase's answer, or (while expansions are left) a request to expand nodes: one more tool, one more text shape. */
export function drillDownAnswer<T>(spec: AnswerSpec<T>, canExpand: boolean): AnswerSpec<DrillDownReply<T>> {
  const answerTools = spec.tools.map(
    (tool): AnswerTool<DrillDownReply<T>> => ({
      ...tool,
      accept: (input) => {
        const accepted = tool.accept(input);
        return accepted.ok ? { ok: true, value: { kind: 'answer', value: accepted.value } } : accepted;
      },
    }),
  );
  return {
    tools: canExpand ? [...answerTools, EXPAND_TOOL] : answerTools,
    fromText: (reply) => {
      const ids = canExpand ? parseExpandRequest(reply) : null;
      if (ids !== null) return { ok: true, value: { kind: 'expand', ids } };
      const parsed = spec.fromText(reply);
      return parsed.ok ? { ok: true, value: { kind: 'answer', value: parsed.value } } : parsed;
    },
    textNudge: spec.textNudge,
    textRetries: spec.textRetries,
  };
}

/**
 * `askForAnswer` with drill-down: while the telescope allows more expansions, an `expand` call (or a text
 * reply `{"expand": [ids]}`) puts the request and the level below into the conversation and asks again.
 * Without a telescope it is exactly `askForAnswer`.
 */
export async function askWithDrillDown<T>(
  deps: DiscoveryDeps,
  telescope: TelescopeSession | undefined,
  options: AskOptions & { answer: AnswerSpec<T>; expansionBudgetTokens: number; family: TokenFamily },
): Promise<{ answer: AskForAnswerResult<DrillDownReply<T>>; promptTokensTotal: number }> {
  const sections: PromptSection[] = [...options.sections];
  let promptTokensTotal = 0;
  for (;;) {
    const canExpand = telescope !== undefined && telescope.state.expansions < deps.config.compaction.maxExpansions;
    const answer = await askForAnswer<DrillDownReply<T>>(deps, {
      ...options,
      sections,
      answer: drillDownAnswer(options.answer, canExpand),
    });
    promptTokensTotal += answer.promptTokensTotal;
    if (!answer.ok || answer.value.kind === 'answer' || !telescope) return { answer, promptTokensTotal };
    sections.push(
      {
        id: `expand-request-${telescope.state.expansions}`,
        role: 'assistant',
        text: JSON.stringify({ expand: answer.value.ids }),
        priority: 90,
        shrink: 'none',
      },
      {
        id: `expansion-${telescope.state.expansions}`,
        role: 'user',
        text: expandForModel(telescope, answer.value.ids, options.expansionBudgetTokens, options.family),
        priority: 90,
        shrink: 'truncate',
        minTokens: 200,
      },
    );
  }
}

/** A telescope session's figures for the run telemetry. */
export function telescopeFigures(session: TelescopeSession, family: TokenFamily, promptTokensTotal: number) {
  return {
    nodes: session.tree.counts,
    first_view_tokens: estimateTokens(session.firstViewText, family),
    drill_down_calls: session.state.expansions,
    expanded_nodes: [...session.state.shown].filter((id) => !id.startsWith('L3-')),
    prompt_tokens_total: promptTokensTotal,
  };
}

/** The expansion text for the model's next turn. */
export function expandForModel(session: TelescopeSession, ids: readonly string[], budgetTokens: number, family: TokenFamily): string {
  const result = expand(session.tree, ids, budgetTokens, family, session.state);
  return `Expanded nodes:\n\n${result.text}\n\nNow answer as instructed (or expand again if you still need to).`;
}

/** Adds one area's telescope figures and the compactor's stats to the run telemetry. */
export function mergeTelescopeTelemetry(
  current: TelescopeTelemetry | undefined,
  areaId: string,
  area: TelescopeTelemetry['areas'][string],
  strategies: TelescopeTelemetry['strategies'],
): TelescopeTelemetry {
  const merged: TelescopeTelemetry = {
    evidence: 'telescope',
    areas: { ...(current?.areas ?? {}), [areaId]: area },
    strategies: { ...(current?.strategies ?? {}) },
  };
  for (const [name, stats] of Object.entries(strategies)) {
    const before = merged.strategies[name];
    const input = (before?.input_tokens ?? 0) + stats.input_tokens;
    const output = (before?.output_tokens ?? 0) + stats.output_tokens;
    merged.strategies[name] = {
      input_tokens: input,
      output_tokens: output,
      saved_pct: input === 0 ? 0 : Math.round(1000 * (1 - output / input)) / 10,
      cache_hits: (before?.cache_hits ?? 0) + stats.cache_hits,
      cache_misses: (before?.cache_misses ?? 0) + stats.cache_misses,
      llm_calls: (before?.llm_calls ?? 0) + stats.llm_calls,
    };
  }
  return merged;
}
/** The shipped strategies over the run store's cache, with the fast-tier summarizer when one is configured. */
function runCompactor(deps: DiscoveryDeps, runId: string, label: string, source: string, family: TokenFamily) {
  const fast = fastSummarizer(deps, runId, label);
  return createCompactor({ registry: shippedStrategies(), cache: deps.store, source, family, summarizers: fast ? { fast } : {} });
}
