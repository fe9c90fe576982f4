/**
 * The telescope tree of one run (telescoping-compaction seed):
 *
 *   L0  raw: a step's stored result rows                      (never sent unless expanded)
 *   L1  one abstract per query step: its deterministic digest (result_digest), the tables and
 *       columns it touched (schema_signature), and a short narrative when a fast model is configured
 *   L2  group abstracts: one per analysis area (the steps picked for it), one per table family
 *       (steps reading tables of the same family), each a line per child with the child's id, and,
 *       once insights exist, one `audit_findings` node per area (each insight's claim, recount and
 *       verification status, with the ids of the steps it cites)
 *   LN  the run index: one line per group with its node id
 *
 * Node ids are content-derived (`L1-3f9a…`), so the same step over the same data has the same id in
 * every run, and every compacted text comes through the content-addressed cache.
 */
import type { ExplorationStep } from '../../domain/index.js';
import { estimateTokens, type TokenFamily } from '../../llm/tokens.js';
import { executedSql, renderStepDigest, stepCompact } from '../render.js';
import { nodeId } from './cache-key.js';
import type { Compactor } from './compactor.js';

export type TelescopeLevel = 0 | 1 | 2 | 3;

export interface TelescopeNode {
  id: string;
  level: TelescopeLevel;
  kind: 'raw' | 'step' | 'area' | 'table_family' | 'findings' | 'index';
  title: string;
  /** What an expansion of this node shows. */
  text: string;
  /** One line standing for this node inside its parent. */
  headline: string;
  children: string[];
  tokens: number;
  step?: number;
}

export interface TelescopeTree {
  nodes: ReadonlyMap<string, TelescopeNode>;
  index: TelescopeNode;
  /** area id → its L2 node id */
  areaGroups: ReadonlyMap<string, string>;
  /** step number → its L1 node id */
  stepNodes: ReadonlyMap<number, string>;
  /** area id → its findings node id (only when findings were given) */
  findingGroups: ReadonlyMap<string, string>;
  counts: { l0: number; l1: number; l2: number; ln: number };
}

/** One insight as the audit_findings strategy sees it. */
export interface Finding {
  id: string;
  name: string;
  severity: string;
  /** One line: what was claimed and what the recount found, or why it was not recounted. */
  verification: string;
  source_steps: readonly number[];
}

export interface AreaFindings {
  areaId: string;
  areaName: string;
  findings: readonly Finding[];
}

export interface AreaSelection {
  id: string;
  name: string;
  /** Picked steps, best first. */
  steps: readonly number[];
}

const TABLE_REFERENCE = /\b(?:from|join)\s+((?:"[^"]+"|[A-Za-z_][\w$]*)(?:\s*\.\s*(?:"[^"]+"|[A-Za-z_][\w$]*))?)/gi;

/** Tables a query reads, as written (quotes removed), in order of first mention. */
export function tablesRead(sql: string): string[] {
  const seen = new Set<string>();
  for (const match of sql.matchAll(TABLE_REFERENCE)) {
    const name = (match[1] ?? '').replace(/"/g, '').replace(/\s+/g, '');
    // a CTE name or a subquery alias is read "from" too; lower-case keeps families stable across quoting
    if (name && !/^(select|lateral|unnest)$/i.test(name)) seen.add(name.toLowerCase());
  }
  return [...seen];
}

/** The family of a table: its schema plus the first word of its name, singular (`main.order_items` → `main.order`). */
export function tableFamily(table: string): string {
  const dot = table.lastIndexOf('.');
  const schema = dot >= 0 ? table.slice(0, dot) : '';
  const name = dot >= 0 ? table.slice(dot + 1) : table;
  const head = (name.split(/[_\s-]/)[0] ?? name).replace(/(?<=[a-z]{3})s$/, '');
  return schema ? `${schema}.${head}` : head;
}

function signature(step: ExplorationStep): string {
  const tables = tablesRead(executedSql(step));
  const columns = (step.columns ?? []).map((column) => column.name);
  return `tables: ${tables.join(', ') || '—'}; columns: ${columns.slice(0, 12).join(', ')}${columns.length > 12 ? `, +${columns.length - 12}` : ''}`;
}

function isAbstracted(step: ExplorationStep): boolean {
  return step.action === 'query' && !step.error && stepCompact(step) !== undefined;
}

export async function buildTelescopeTree(input: {
  steps: readonly ExplorationStep[];
  areas: readonly AreaSelection[];
  /** The insights of each area, for `audit_findings` nodes (recommendations). */
  findings?: readonly AreaFindings[];
  compactor: Compactor;
  family: TokenFamily;
  signal?: AbortSignal;
}): Promise<TelescopeTree> {
  const { compactor, family } = input;
  const nodes = new Map<string, TelescopeNode>();
  const stepNodes = new Map<number, string>();
  const add = (node: Omit<TelescopeNode, 'tokens'>): TelescopeNode => {
    const full = { ...node, tokens: estimateTokens(node.text, family) };
    nodes.set(full.id, full);
    return full;
  };
  const counts = { l0: 0, l1: 0, l2: 0, ln: 0 };

  for (const step of input.steps.filter(isAbstracted)) {
    const raw = JSON.stringify({ step: step.step, sql: executedSql(step), columns: step.columns ?? [], rows: step.rows ?? [] });
    const l0 = add({
      id: nodeId(0, raw),
      level: 0,
      kind: 'raw',
      title: `step ${step.step} raw rows`,
      text: raw,
      headline: `raw rows of step ${step.step}`,
      children: [],
      step: step.step,
    });
    counts.l0 += 1;

    const digestSource = renderStepDigest(step);
    const digest = await compactor.compact({
      strategy: 'result_digest',
      level: 1,
      kind: 'one query result',
      content: digestSource,
      produce: () => digestSource,
    });
    const signatureText = await compactor.compact({
      strategy: 'schema_signature',
      level: 1,
      kind: 'one query',
      content: `${executedSql(step)}\n${JSON.stringify(step.columns ?? [])}`,
      produce: () => signature(step),
    });
    const narrative = compactor.available('narrative_summary')
      ? await compactor.compact({
          strategy: 'narrative_summary',
          level: 1,
          kind: `the result of "${step.query_purpose}"`,
          content: digestSource,
          ...(input.signal ? { signal: input.signal } : {}),
        })
      : null;
    const body = [digest?.text ?? digestSource, ...(narrative ? [`narrative: ${narrative.text}`] : [])].join('\n');
    const headline = `step ${step.step} (${step.row_count ?? 0} rows): ${step.query_purpose || 'no purpose given'} | ${signatureText?.text ?? signature(step)}${narrative ? ` | ${narrative.text}` : ''}`;
    const id = nodeId(1, body);
    add({ id, level: 1, kind: 'step', title: `step ${step.step}`, text: body, headline, children: [l0.id], step: step.step });
    stepNodes.set(step.step, id);
    counts.l1 += 1;
  }

  const groups: TelescopeNode[] = [];
  const addGroup = async (kind: 'area' | 'table_family', title: string, stepNumbers: readonly number[]) => {
    const children = stepNumbers.map((step) => stepNodes.get(step)).filter((id): id is string => id !== undefined);
    if (children.length === 0) return undefined;
    const lines = children.map((child) => `[${child}] ${nodes.get(child)?.headline ?? ''}`);
    const listing = lines.join('\n');
    const narrative = compactor.available('narrative_summary')
      ? await compactor.compact({
          strategy: 'narrative_summary',
          level: 2,
          kind: `a group of query results (${title})`,
          content: listing,
          ...(input.signal ? { signal: input.signal } : {}),
        })
      : null;
    const text = `${title}\n${narrative ? `summary: ${narrative.text}\n` : ''}${listing}`;
    const node = add({
      id: nodeId(2, `${kind}\n${text}`),
      level: 2,
      kind,
      title,
      text,
      headline: `${title}: ${children.length} steps`,
      children,
    });
    counts.l2 += 1;
    groups.push(node);
    return node;
  };

  const areaGroups = new Map<string, string>();
  for (const area of input.areas) {
    const node = await addGroup('area', `area ${area.id} (${area.name})`, area.steps);
    if (node) areaGroups.set(area.id, node.id);
  }
  const findingGroups = new Map<string, string>();
  for (const area of input.findings ?? []) {
    if (area.findings.length === 0) continue;
    const source = JSON.stringify(area);
    const produce = () =>
      [
        `findings of area ${area.areaId} (${area.areaName})`,
        ...area.findings.map((finding) => {
          const cited = finding.source_steps.map((step) => stepNodes.get(step)).filter((id): id is string => id !== undefined);
          return `- ${finding.id} [${finding.severity}] ${finding.name} | ${finding.verification}${cited.length > 0 ? ` | cites ${cited.map((id) => `[${id}]`).join(' ')}` : ''}`;
        }),
      ].join('\n');
    const compacted = await compactor.compact({
      strategy: 'audit_findings',
      level: 2,
      kind: 'verified findings of one area',
      content: source,
      produce,
    });
    const text = compacted?.text ?? produce();
    const children = [...new Set(area.findings.flatMap((finding) => finding.source_steps))]
      .map((step) => stepNodes.get(step))
      .filter((id): id is string => id !== undefined);
    const node = add({
      id: nodeId(2, `findings\n${text}`),
      level: 2,
      kind: 'findings',
      title: `findings of area ${area.areaId}`,
      text,
      headline: `findings of area ${area.areaId}: ${area.findings.length} insights`,
      children,
    });
    counts.l2 += 1;
    groups.push(node);
    findingGroups.set(area.areaId, node.id);
  }
  const byFamily = new Map<string, number[]>();
  for (const step of input.steps.filter(isAbstracted)) {
    for (const family of new Set(tablesRead(executedSql(step)).map(tableFamily)))
      byFamily.set(family, [...(byFamily.get(family) ?? []), step.step]);
  }
  for (const [familyName, steps] of [...byFamily.entries()].sort(([left], [right]) => left.localeCompare(right))) {
    await addGroup('table_family', `tables ${familyName}*`, steps);
  }

  const indexText = groups.length === 0 ? '(no query results yet)' : groups.map((group) => `[${group.id}] ${group.headline}`).join('\n');
  const index = add({
    id: nodeId(3, indexText),
    level: 3,
    kind: 'index',
    title: 'run index',
    text: indexText,
    headline: `run index: ${groups.length} groups`,
    children: groups.map((group) => group.id),
  });
  counts.ln = 1;
  return { nodes, index, areaGroups, stepNodes, findingGroups, counts };
}
