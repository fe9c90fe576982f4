/**
 * Count concentration: the values of a column that hold far more rows than a typical value (one
 * category with most of the records, two owners carrying most of the work, one manager with many
 * more reports). A value stands out when its count is above the median value's by more than three
 * Poisson standard deviations and by a quarter at least; the threshold follows the data's own median.
 */
import type { DigestStep } from '../readers/digests.js';
import { formatCount, formatPercent, formatRatio, pluralNoun, roundMetric, rowsNoun } from '../text.js';
import { countClaim } from './claims.js';
import { confidenceOf, type Finding } from './finding.js';
import { numberOf, segmentLabel, shapeOf } from './result-shape.js';
import { NO_SEGMENT, dimensionName } from './segment-gaps.js';

/** Poisson z-score above the median value a count must reach, with few values; more values need more (see zFloor). */
const MIN_COUNT_Z = 3;
/** Rows a value needs before it can stand out. */
const MIN_STANDOUT_ROWS = 10;
/** The top value must exceed the median by this factor … */
const MIN_TOP_RATIO = 1.5;
/** … and values named beside it by this one. */
const MIN_COUNT_RATIO = 1.25;
/** Values named in one finding at most. */
const MAX_STANDOUTS = 3;
/** Fewer distinct values than this and "far above the others" means little. */
const MIN_VALUES = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function listText(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function findCountConcentration(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !step.complete || shape.timeSegment || shape.countColumns.length === 0) return [];
  if (
    step.rowColumns.some((name) => /^(months|term|dimension|outer_column)$|^corr_|^min_|^repeated_|^days_to_first_|^furthest_/.test(name))
  )
    return [];
  if (step.rows.every((row) => numberOf(row[shape.segmentColumn]) !== null)) return []; // positions on a scale, not groups
  const countColumn = shape.countColumns[0] as string;
  const medianColumn = step.rowColumns.find((name) => name.startsWith(`median_${countColumn}_per_`));
  const distinctColumn = step.rowColumns.find((name) => /^distinct_/.test(name));
  const shareColumn = step.rowColumns.find((name) => /^share_of_/.test(name) && !/^share_of_total_/.test(name));
  const rows = step.rows
    .map((row) => ({
      label: segmentLabel(row[shape.segmentColumn]),
      raw: row[shape.segmentColumn],
      count: numberOf(row[countColumn]) ?? 0,
    }))
    .filter((row) => row.label !== NO_SEGMENT);
  const listedMedian = medianColumn ? numberOf(step.rows[0]?.[medianColumn]) : null;
  const values = distinctColumn ? (numberOf(step.rows[0]?.[distinctColumn]) ?? rows.length) : step.rows.length;
  if (values < MIN_VALUES || rows.length < 2) return [];
  const typical = listedMedian ?? median(rows.map((row) => row.count));
  if (typical <= 0) return [];
  // every row of the table, also those of values not shown: a value's count over its share
  const fromShare = shareColumn
    ? step.rows
        .map((row) => (numberOf(row[countColumn]) ?? 0) / (numberOf(row[shareColumn]) ?? 0))
        .find((value) => Number.isFinite(value) && value > 0)
    : undefined;
  const total = Math.round(fromShare ?? step.rows.reduce((sum, row) => sum + (numberOf(row[countColumn]) ?? 0), 0));
  const ranked = [...rows].sort((left, right) => right.count - left.count || (left.label < right.label ? -1 : 1));
  // the largest of many values is far from the median by chance alone: the bar rises with the number of values
  const zFloor = Math.max(MIN_COUNT_Z, Math.sqrt(2 * Math.log(values)) + 1);
  const standouts = ranked
    .filter(
      (row) =>
        row.count >= MIN_STANDOUT_ROWS && row.count >= typical * MIN_COUNT_RATIO && (row.count - typical) / Math.sqrt(typical) >= zFloor,
    )
    .slice(0, MAX_STANDOUTS);
  const top = standouts[0];
  if (!top || top.count < typical * MIN_TOP_RATIO) return [];
  const others = ranked.filter((row) => !standouts.includes(row));
  // the verifier compares the top value with a real value near the median
  const reference = [...others].sort(
    (left, right) => Math.abs(left.count - typical) - Math.abs(right.count - typical) || (left.label < right.label ? -1 : 1),
  )[0];
  const dimension = dimensionName(step.sql, shape.segmentColumn);
  const rowsName = rowsNoun(countColumn);
  const names = standouts.map((row) => row.label);
  const ratio = top.count / typical;
  const held = standouts.reduce((sum, row) => sum + row.count, 0);
  const counts = standouts.map((row) => `${row.label} has ${formatCount(row.count)} (${formatPercent(row.count / total)})`);
  const otherRange =
    others.length > 0
      ? `the other ${dimension} values have ${formatCount(Math.min(...others.map((row) => row.count)))} to ${formatCount(Math.max(...others.map((row) => row.count)))}${
          values > step.rows.length ? ' among those shown' : ''
        }`
      : '';
  const name =
    standouts.length === 1
      ? `${top.label}: significantly more ${rowsName} than the other ${dimension} values (${formatCount(top.count)} of ${formatCount(total)}, ${formatPercent(top.count / total)}; median ${formatCount(typical)})`
      : `${listText(names)}: significantly more ${rowsName} than the other ${dimension} values (${standouts.map((row) => formatCount(row.count)).join(' and ')}; median ${formatCount(typical)})`;
  const description = [
    `By ${dimension} (step ${step.step}), the distribution of ${rowsName} across ${pluralNoun(dimension)} is far from even: ${listText(counts)} of the ${formatCount(total)} ${rowsName}, against a median of ${formatCount(typical)} per ${dimension} value over ${formatCount(values)} values${otherRange ? `; ${otherRange}` : ''}.`,
    standouts.length === 1
      ? `${top.label} holds ${formatRatio(ratio)} the typical count: the ${rowsName} are concentrated there, an imbalance compared to the others.`
      : `Together they hold ${formatPercent(held / total)} of the ${rowsName}: an imbalance compared to the others (${formatRatio(ratio)} the typical count for ${top.label}).`,
  ].join(' ');
  const claim = reference
    ? countClaim({
        sql: step.sql,
        segmentColumn: shape.segmentColumn,
        segmentValue: typeof top.raw === 'number' ? top.raw : top.label,
        count: top.count,
        comparisonValue: typeof reference.raw === 'number' ? reference.raw : reference.label,
        comparisonCount: reference.count,
        label: `${rowsName} per ${dimension}`,
      })
    : undefined;
  return [
    {
      kind: 'count_concentration',
      steps: [step.step],
      strength: Math.log(ratio) * Math.min(1, Math.sqrt(top.count / 100)) * 1.2,
      name,
      description,
      severity: ratio >= 3 ? 'high' : ratio >= 1.8 ? 'medium' : 'low',
      affectedCount: held,
      confidence: confidenceOf(top.count),
      riskScore: roundMetric(Math.min(1, held / Math.max(1, total))),
      metrics: {
        [countColumn]: top.count,
        [`median_${countColumn}_per_${shape.segmentColumn}`]: roundMetric(typical),
        [`share_of_${countColumn}`]: roundMetric(held / Math.max(1, total)),
        ratio: roundMetric(ratio),
        segment_column: shape.segmentColumn,
        ...(standouts.length === 1
          ? { segment_value: typeof top.raw === 'number' ? top.raw : top.label }
          : { segment_values: names.join('|') }),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatRatio(ratio)} the median ${dimension} value`, `${formatPercent(held / Math.max(1, total))} of ${rowsName}`],
      targetSegment: `${rowsName} of ${listText(names)} (${dimension})`,
      dedupeKey: `${shape.segmentColumn}:${names.join('|')}:count`,
      ...(claim ? { claim } : {}),
    },
  ];
}
