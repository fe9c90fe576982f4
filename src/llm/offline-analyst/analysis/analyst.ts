/**
 * Analysis: turns the digests of one area's steps into insights. Only the steps planned for this area
 * are read (their purpose starts with the area's id); each finder looks for one kind of effect with
 * the numbers in the digest; the strongest distinct findings become insights, or none when nothing
 * clears the bars.
 */
import type { LlmRequest } from '../../port.js';
import { analysisEvidence, nodesToExpand } from './drill-down.js';
import { purposeAreaIds, readAnalysisArea, readDigests, type DigestStep } from '../readers/digests.js';
import { compareText, mentionsStem, wordsOf } from '../text.js';
import { findCliff, findConcentration, findEarlyFirstAction, findStoppingPoint } from './distributions.js';
import type { Finding } from './finding.js';
import { findSegmentGaps } from './segment-gaps.js';
import { findMonthlyTrends, findSegmentTrends, findWeeklySpike } from './trends.js';

/** Insights per area: a few solid findings beat many weak ones (the prompts say so too). */
export const MAX_INSIGHTS_PER_AREA = 6;

const FINDERS: Array<(step: DigestStep) => Finding[]> = [
  findSegmentGaps,
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
  };
}

export function findInsights(prompt: string): Finding[] {
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
  return [...byKey.values()]
    .sort(
      (left, right) => right.strength - left.strength || (left.steps[0] ?? 0) - (right.steps[0] ?? 0) || compareText(left.name, right.name),
    )
    .slice(0, MAX_INSIGHTS_PER_AREA);
}

export function analyse(request: LlmRequest): string {
  const expand = nodesToExpand(request);
  if (expand) return JSON.stringify({ expand });
  return JSON.stringify({ insights: findInsights(analysisEvidence(request)).map(toInsight) });
}
