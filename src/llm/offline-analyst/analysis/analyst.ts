/**
 * Analysis: turns the digests of one area's steps into insights. Only the steps planned for this area
 * are read (their purpose starts with the area's id); each finder looks for one kind of effect with
 * the numbers in the digest; the strongest distinct findings become insights, or none when nothing
 * clears the bars.
 */
import type { LlmRequest } from '../../port.js';
import { analysisEvidence, nodesToExpand } from './drill-down.js';
import { purposeAreaIds, readAnalysisArea, readDigests, type DigestStep } from '../readers/digests.js';
import { readGoal } from '../readers/catalog.js';
import { compareText, mentionsStem, wordsOf } from '../text.js';
import { findCountConcentration } from './counts.js';
import { findCliff, findConcentration, findEarlyFirstAction, findStoppingPoint } from './distributions.js';
import type { Finding } from './finding.js';
import { findMix, findTerms } from './mix.js';
import { findSegmentSpikes, findSegmentTrendsByMonth, findSeriesChanges } from './monthly.js';
import { findBracketTrends, findCorrelations, findRepeatedRows } from './relations.js';
import { findSegmentGaps } from './segment-gaps.js';
import { findMonthlyTrends, findSegmentTrends, findWeeklySpike } from './trends.js';

/** Insights per area: a few solid findings beat many weak ones (the prompts say so too). */
export const MAX_INSIGHTS_PER_AREA = 10;
/** How much more a finding about something the team's goal names weighs in the ranking. */
const GOAL_WEIGHT = 1.5;

const FINDERS: Array<(step: DigestStep) => Finding[]> = [
  findSegmentGaps,
  findCountConcentration,
  findMix,
  findTerms,
  findSegmentSpikes,
  findSegmentTrendsByMonth,
  findSeriesChanges,
  findBracketTrends,
  findCorrelations,
  findRepeatedRows,
  findMonthlyTrends,
  findSegmentTrends,
  findWeeklySpike,
  findConcentration,
  findStoppingPoint,
  findCliff,
  findEarlyFirstAction,
];

/** The purpose prefix that names this area: every word of the id appears in the area's name. */
function areaIdFor(areaName: string, ids: readonly string[]): string | undefined {
  const matching = ids.filter((id) => id.split('_').every((part) => mentionsStem(areaName, part)));
  return matching.sort((left, right) => right.split('_').length - left.split('_').length || compareText(left, right))[0];
}

/** Steps this area should read: its own planned steps, else (another explorer's purposes) those that mention the area. */
export function stepsForArea(steps: readonly DigestStep[], area: { name: string; description: string }): DigestStep[] {
  const usable = steps.filter((step) => !step.failed && step.rows.length > 0);
  const ids = purposeAreaIds(usable);
  const id = areaIdFor(area.name, ids);
  if (id) return usable.filter((step) => step.purpose.startsWith(`${id}: `));
  if (ids.length > 0 && usable.every((step) => /^[a-z][a-z0-9_]*: /.test(step.purpose))) return [];
  const areaWords = wordsOf(`${area.name} ${area.description}`).filter((word) => word.length >= 5);
  return usable.filter((step) => areaWords.some((word) => mentionsStem(`${step.purpose} ${step.rowColumns.join(' ')}`, word)));
}

function toInsight(finding: Finding): Record<string, unknown> {
  return {
    name: finding.name,
    description: finding.description,
    severity: finding.severity,
    affected_count: finding.affectedCount,
    risk_score: finding.riskScore,
    confidence: finding.confidence,
    metrics: finding.metrics,
    indicators: finding.indicators,
    target_segment: finding.targetSegment,
    source_steps: finding.steps,
    ...(finding.claim ? { claim: finding.claim } : {}),
  };
}

/** Whether a finding is about something the goal names: its segment's value or column. */
function aboutGoal(finding: Finding, goal: string): boolean {
  if (goal === '') return false;
  const values = [finding.metrics.segment_value, ...String(finding.metrics.segment_values ?? '').split('|'), finding.metrics.also_value]
    .filter((value): value is string | number => value !== undefined && value !== '')
    .map(String)
    .filter((value) => value.length >= 2 && !/^\d{4}-\d{2}/.test(value));
  const lower = goal.toLowerCase();
  return values.some((value) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${value.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}])`, 'u').test(lower),
  );
}

/**
 * Every finding of the area's steps, one per thing said (segment, measure and kind), ranked by effect
 * size weighted by support across all the steps — not one per step — with findings about what the
 * team's goal names first among equals.
 */
export function findInsights(prompt: string, goal = ''): Finding[] {
  const area = readAnalysisArea(prompt);
  const steps = stepsForArea(readDigests(prompt), area);
  const byKey = new Map<string, Finding>();
  for (const step of steps) {
    for (const finder of FINDERS) {
      for (const finding of finder(step)) {
        const existing = byKey.get(finding.dedupeKey);
        if (!existing || finding.strength > existing.strength) byKey.set(finding.dedupeKey, finding);
      }
    }
  }
  const weight = (finding: Finding) => finding.strength * (aboutGoal(finding, goal) ? GOAL_WEIGHT : 1);
  const ranked = [...byKey.values()].sort(
    (left, right) => weight(right) - weight(left) || (left.steps[0] ?? 0) - (right.steps[0] ?? 0) || compareText(left.name, right.name),
  );
  const kept: Finding[] = [];
  for (const finding of ranked) if (!kept.some((other) => restates(other, finding))) kept.push(finding);
  return kept.slice(0, MAX_INSIGHTS_PER_AREA);
}

/** The numbers a finding rests on, without the bookkeeping that says where to recount them. */
function measuredNumbers(finding: Finding): number[] {
  return Object.entries(finding.metrics)
    .filter(([name, value]) => typeof value === 'number' && !/^(source_step|segment_value|z_score)$/.test(name))
    .map(([, value]) => value as number);
}

/**
 * Two findings of one kind about the same value with the same numbers say one thing twice (a
 * status share and the milestone that mirrors it; a category and a group column that copies it).
 */
function restates(kept: Finding, candidate: Finding): boolean {
  if (kept.kind !== candidate.kind) return false;
  const sameValue =
    String(kept.metrics.segment_value ?? kept.metrics.segment_values) ===
    String(candidate.metrics.segment_value ?? candidate.metrics.segment_values);
  if (!sameValue) return false;
  const left = measuredNumbers(kept);
  const right = measuredNumbers(candidate);
  const close = (a: number, b: number) => Math.abs(a - b) <= 0.03 * Math.max(Math.abs(a), Math.abs(b), 1e-9);
  return right.length > 0 && right.filter((value) => left.some((other) => close(value, other))).length >= Math.min(2, right.length);
}

export function analyse(request: LlmRequest): string {
  const expand = nodesToExpand(request);
  if (expand) return JSON.stringify({ expand });
  return JSON.stringify({ insights: findInsights(analysisEvidence(request), readGoal(request.system ?? '')).map(toInsight) });
}
