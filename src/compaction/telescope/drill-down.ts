/**
 * Drill-down: what the analysing model sees of the tree, and what `expand(nodeId)` returns. The first
 * view is the run index, the area's group (one line per step with its node id) and the full abstracts
 * of the best-ranked steps within a share of the budget; each expansion shows the level below the
 * nodes asked for (L2 → its steps' abstracts, L1 → the step's raw rows, LN → the groups), within its
 * own token budget, never repeating what was already shown.
 */
import { fenceData } from '../../llm/data-fence.js';
import { estimateTokens, type TokenFamily } from '../../llm/tokens.js';
import type { TelescopeNode, TelescopeTree } from './tree.js';

/** Expansion requests the model may make in one phase by default (`compaction.maxExpansions`). */
export const MAX_EXPANSIONS_PER_PHASE = 2;
/** Node ids one expansion request may name. */
export const MAX_NODES_PER_EXPANSION = 8;
/**
 * Share of the digests-only evidence (every picked step's digest, as the `digests` mode would send it)
 * that the first view spends on full step abstracts; the rest is reached by expansion.
 */
export const FIRST_VIEW_ABSTRACT_SHARE = 0.25;

const TREE_LEGEND = [
  'The evidence below is a tree of summaries. Node ids look like L1-3f9a2c1b04de: L3 is the run index, L2 a group of steps,',
  "L1 one step's full result digest, L0 a step's raw rows. Lines starting with [id] are nodes you have not seen in full.",
].join(' ');

/** What the model is told about the tree: the legend, and how to drill down when it may. */
export function expandInstructions(maxExpansions: number): string {
  if (maxExpansions <= 0) return `${TREE_LEGEND} Only what is shown is available: answer from it.`;
  return [
    TREE_LEGEND,
    `If the evidence shown is not enough, you may reply with ONLY {"expand": ["<node id>", …]} (at most ${MAX_NODES_PER_EXPANSION} ids,`,
    `at most ${maxExpansions} times) to see the level below those nodes; otherwise answer exactly as instructed.`,
  ].join(' ');
}

export interface DrillDownState {
  shown: Set<string>;
  expansions: number;
}

export function newDrillDownState(): DrillDownState {
  return { shown: new Set(), expansions: 0 };
}

/** A node as the model sees it: its id and title, then its text (results, digests, rows) fenced as warehouse data. */
function render(node: TelescopeNode): string {
  return `=== ${node.id} (${node.title}) ===\n${fenceData(node.text)}`;
}

/**
 * The first view for one area: index, the area's group, and the top-ranked step abstracts within
 * `FIRST_VIEW_ABSTRACT_SHARE` of `referenceTokens` (what the digests-only evidence would cost), never
 * past `budgetTokens`.
 */
export function firstView(
  tree: TelescopeTree,
  areaId: string,
  rankedSteps: readonly number[],
  budget: { budgetTokens: number; referenceTokens: number },
  family: TokenFamily,
  state: DrillDownState,
): string {
  const { budgetTokens } = budget;
  const parts: string[] = [render(tree.index)];
  state.shown.add(tree.index.id);
  const groupId = tree.areaGroups.get(areaId);
  const group = groupId ? tree.nodes.get(groupId) : undefined;
  if (group) {
    parts.push(render(group));
    state.shown.add(group.id);
  }
  let used = estimateTokens(parts.join('\n\n'), family);
  const abstractBudget = Math.floor(Math.min(budgetTokens, budget.referenceTokens) * FIRST_VIEW_ABSTRACT_SHARE);
  let abstracts = 0;
  for (const step of rankedSteps) {
    const node = tree.nodes.get(tree.stepNodes.get(step) ?? '');
    if (!node) continue;
    const text = render(node);
    const tokens = estimateTokens(text, family);
    if (abstracts + tokens > abstractBudget || used + tokens > budgetTokens) break;
    parts.push(text);
    state.shown.add(node.id);
    abstracts += tokens;
    used += tokens;
  }
  return parts.join('\n\n');
}

export interface ExpansionResult {
  text: string;
  shown: string[];
  refused: { id: string; reason: 'unknown' | 'already_shown' | 'over_budget' | 'over_node_limit' }[];
}

/** The level below the requested nodes, within `budgetTokens`. */
export function expand(
  tree: TelescopeTree,
  ids: readonly string[],
  budgetTokens: number,
  family: TokenFamily,
  state: DrillDownState,
): ExpansionResult {
  state.expansions += 1;
  const result: ExpansionResult = { text: '', shown: [], refused: [] };
  const parts: string[] = [];
  let used = 0;
  const queue: string[] = [];
  ids.forEach((id, index) => {
    if (index >= MAX_NODES_PER_EXPANSION) {
      result.refused.push({ id, reason: 'over_node_limit' });
      return;
    }
    const node = tree.nodes.get(id);
    if (!node) {
      result.refused.push({ id, reason: 'unknown' });
      return;
    }
    // expanding a node shows its children; an L1 already shown in full expands to its raw rows
    queue.push(...(node.level === 1 && !state.shown.has(node.id) ? [node.id] : node.children));
  });
  for (const id of queue) {
    const node = tree.nodes.get(id);
    if (!node) continue;
    if (state.shown.has(id)) {
      result.refused.push({ id, reason: 'already_shown' });
      continue;
    }
    const text = render(node);
    const tokens = estimateTokens(text, family);
    if (used + tokens > budgetTokens) {
      result.refused.push({ id, reason: 'over_budget' });
      continue;
    }
    parts.push(text);
    state.shown.add(id);
    result.shown.push(id);
    used += tokens;
  }
  const notes = result.refused.map((refusal) => `${refusal.id}: ${refusal.reason.replace(/_/g, ' ')}`);
  result.text = [parts.join('\n\n') || '(nothing new to show)', ...(notes.length > 0 ? [`not shown — ${notes.join('; ')}`] : [])].join(
    '\n\n',
  );
  return result;
}

const EXPAND_REPLY = /^\s*(?:```(?:json)?\s*)?\{\s*"expand"\s*:\s*(\[[^\]]*\])\s*\}\s*(?:```)?\s*$/;

/** The node ids of an `{"expand": [...]}` reply, or null when the reply is something else. */
export function parseExpandRequest(reply: string): string[] | null {
  const match = EXPAND_REPLY.exec(reply);
  if (!match) return null;
  try {
    const ids = JSON.parse(match[1] ?? '[]') as unknown;
    if (!Array.isArray(ids)) return null;
    return ids.filter((id): id is string => typeof id === 'string' && /^L[0-3]-[0-9a-f]{12}$/.test(id));
  } catch {
    return null;
  }
}
