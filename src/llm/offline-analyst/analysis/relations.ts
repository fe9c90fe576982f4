/**
 * How measures move together: a measure that climbs or falls across the quartile brackets of a
 * metric (higher amounts take longer), Pearson correlations that are strong over all rows or inside
 * one segment, and rows that repeat each other exactly on every descriptive column.
 */
import type { DigestStep } from '../readers/digests.js';
import { ALL_ROWS_LABEL, DIMENSION_COLUMN, VALUE_COLUMN } from '../sql/pattern-queries.js';
import { formatCount, formatPercent, formatRatio, humanize, roundMetric, rowsNoun } from '../text.js';
import { confidenceOf, severityOf, type Finding } from './finding.js';
import { numberOf, segmentLabel, shapeOf } from './result-shape.js';
import { MIN_GAP_RATIO, dimensionName, measureWordsFor, showValue } from './segment-gaps.js';

/** Share of bracket-to-bracket moves that must go the same way. */
const MIN_BRACKET_CONSISTENCY = 0.66;
/** A rate must move this many points from the lowest to the highest bracket … */
const MIN_BRACKET_RATE_GAP = 0.05;
/** … with this two-proportion z-score. */
const MIN_BRACKET_Z = 3;
/** |r| from which a correlation is strong. */
const STRONG_CORRELATION = 0.5;
/** |r| a segment's correlation must differ from the overall one by to be reported on its own. */
const SEGMENT_CORRELATION_GAP = 0.3;
/** Rows a correlation needs. */
const MIN_CORRELATION_ROWS = 20;
/** Share of a table's rows that must repeat before repetition is a finding … */
const MIN_REPEATED_SHARE = 0.02;
/** … and at least this many rows. */
const MIN_REPEATED_ROWS = 5;

function formatBound(value: number): string {
  return formatCount(value);
}

export function findBracketTrends(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !/_bracket$/.test(shape.segmentColumn) || shape.countColumns.length === 0 || step.rows.length < 3) return [];
  const metric = shape.segmentColumn.replace(/_bracket$/, '');
  const minColumn = `min_${metric}`;
  const maxColumn = `max_${metric}`;
  const countColumn = shape.countColumns[0] as string;
  const brackets = step.rows.map((row) => ({
    row,
    count: numberOf(row[countColumn]) ?? 0,
    low: numberOf(row[minColumn]) ?? 0,
    high: numberOf(row[maxColumn]) ?? 0,
  }));
  const metricName = humanize(metric);
  const rowsName = rowsNoun(countColumn);
  const findings: Finding[] = [];
  for (const measure of [...shape.rateColumns, ...shape.averageColumns]) {
    const isRate = shape.rateColumns.includes(measure);
    const values = brackets.map((bracket) => numberOf(bracket.row[measure]));
    if (values.some((value) => value === null)) continue;
    const series = values as number[];
    const first = series[0] as number;
    const last = series.at(-1) as number;
    const moves = series.slice(1).map((value, index) => value - (series[index] as number));
    const rising = last > first;
    const consistency = moves.filter((move) => (rising ? move > 0 : move < 0)).length / moves.length;
    if (consistency < MIN_BRACKET_CONSISTENCY) continue;
    const low = brackets[0] as (typeof brackets)[number];
    const high = brackets.at(-1) as (typeof brackets)[number];
    if (isRate) {
      const pooled = (first * low.count + last * high.count) / Math.max(1, low.count + high.count);
      const error = Math.sqrt(pooled * (1 - pooled) * (1 / Math.max(1, low.count) + 1 / Math.max(1, high.count)));
      if (Math.abs(last - first) < MIN_BRACKET_RATE_GAP || error <= 0 || Math.abs(last - first) / error < MIN_BRACKET_Z) continue;
    } else if (first <= 0 || Math.max(last / first, first / last) < MIN_GAP_RATIO) continue;
    const words = measureWordsFor(step, measure, countColumn);
    const ratio = first > 0 && last > 0 ? last / first : Number.NaN;
    const lowText = `${metricName} ${formatBound(low.low)} to ${formatBound(low.high)}`;
    const highText = `${metricName} ${formatBound(high.low)} to ${formatBound(high.high)}`;
    const firstValue = showValue(first, isRate, words);
    const lastValue = showValue(last, isRate, words);
    findings.push({
      kind: 'bracket_trend',
      steps: [step.step],
      strength: (Number.isFinite(ratio) ? Math.abs(Math.log(ratio)) : 1.5) * consistency * Math.min(1, Math.sqrt(high.count / 100)),
      name: `Higher ${metricName} brackets have a ${rising ? 'higher' : 'lower'} ${words.phrase}: ${lastValue} for ${highText} vs ${firstValue} for ${lowText}${Number.isFinite(ratio) ? ` (${formatRatio(Math.max(ratio, 1 / ratio))})` : ''}`,
      description: `Across quartile brackets of ${metricName} (step ${step.step}), the ${words.phrase} ${rising ? 'rises' : 'falls'} with ${metricName}: ${brackets.map((bracket, index) => `${formatBound(bracket.low)}–${formatBound(bracket.high)}: ${showValue(series[index] as number, isRate, words)} (${formatCount(bracket.count)} ${rowsName})`).join(', ')}. Lower ${metricName} brackets have a ${rising ? 'lower' : 'higher'} ${words.phrase} than higher ${metricName} brackets. Measure: ${words.gloss}.`,
      severity: severityOf(Number.isFinite(ratio) ? Math.max(ratio, 1 / ratio) : 2, 0.25),
      affectedCount: high.count,
      confidence: confidenceOf(high.count + low.count),
      riskScore: roundMetric(Math.min(1, consistency * 0.5)),
      metrics: {
        [`lowest_bracket_${measure}`]: roundMetric(first),
        [`highest_bracket_${measure}`]: roundMetric(last),
        ...(Number.isFinite(ratio) ? { ratio: roundMetric(ratio) } : {}),
        segment_column: shape.segmentColumn,
        segment_value: numberOf(high.row[shape.segmentColumn]) ?? segmentLabel(high.row[shape.segmentColumn]),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${words.phrase} ${firstValue} → ${lastValue} across ${metricName} brackets`],
      targetSegment: `${rowsName} in the highest ${metricName} bracket (${formatBound(high.low)} to ${formatBound(high.high)})`,
      dedupeKey: `bracket:${metric}:${measure}`,
    });
  }
  return findings;
}

/**
 * Positions of `text` from `from` on that stand outside quotes and parentheses, in order, until
 * `visit` returns true; returns that position, or -1 when the text ends first.
 */
function findTopLevel(text: string, from: number, visit: (index: number, char: string) => boolean): number {
  let depth = 0;
  let quote: string | null = null;
  for (let index = from; index < text.length; index++) {
    const char = text[index] as string;
    if (quote) {
      if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (depth === 0 && visit(index, char)) return index;
  }
  return -1;
}

/** Splits a list at its top-level commas (not inside parentheses or quotes). */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  findTopLevel(text, 0, (index, char) => {
    if (char === ',') {
      parts.push(text.slice(start, index).trim());
      start = index + 1;
    }
    return false;
  });
  parts.push(text.slice(start).trim());
  return parts;
}

/** The first SELECT list of a statement: from after `SELECT` to its own top-level `FROM`. */
function firstSelectList(sql: string): string {
  const start = /\bSELECT\b/i.exec(sql);
  if (!start) return '';
  const from = start.index + start[0].length;
  const end = findTopLevel(sql, from, (index) => /^FROM\b/i.test(sql.slice(index, index + 5)) && /\s/.test(sql[index - 1] ?? ' '));
  return end === -1 ? sql.slice(from) : sql.slice(from, end);
}

/** What a correlation's two sides are, read from the `corr(x, y) AS alias` item of the SQL's select list. */
function correlationSides(sql: string, name: string): [string, string] | undefined {
  for (const item of topLevelParts(firstSelectList(sql))) {
    const match = /^corr\(([\s\S]+)\)\s+AS\s+"?([^"\s]+)"?$/.exec(item);
    if (!match || match[2] !== name) continue;
    const [x, y] = topLevelParts(match[1] as string);
    if (x && y) return [sideName(x), sideName(y)];
  }
  return undefined;
}

function sideName(expression: string): string {
  const columns = [...expression.matchAll(/\bt\.("(?:[^"]|"")+"|[A-Za-z_]\w*)/g)].map((item) =>
    humanize((item[1] as string).replace(/^"|"$/g, '')),
  );
  if (/1970-01-01/.test(expression) && columns[0]) return /\b(date|day|time)\b/.test(columns[0]) ? columns[0] : `the date of ${columns[0]}`;
  if (columns.length >= 2) return `the time from ${columns[1]} to ${columns[0]}`;
  return columns[0] ?? humanize(expression);
}

function strengthWord(r: number): string {
  return `${Math.abs(r) >= 0.7 ? 'strong' : 'moderate'} ${r > 0 ? 'positive' : 'negative'}`;
}

export function findCorrelations(step: DigestStep): Finding[] {
  const corrColumns = step.rowColumns.filter((name) => /^corr_/.test(name));
  if (corrColumns.length === 0 || step.rowColumns[0] !== DIMENSION_COLUMN) return [];
  const countColumn = step.rowColumns[2];
  if (!countColumn) return [];
  const rowsName = rowsNoun(countColumn);
  const rows = step.rows.map((row) => ({
    column: segmentLabel(row[DIMENSION_COLUMN]),
    label: segmentLabel(row[VALUE_COLUMN]),
    raw: row[VALUE_COLUMN],
    count: numberOf(row[countColumn]) ?? 0,
    row,
  }));
  const overall = rows.find((row) => row.label === ALL_ROWS_LABEL);
  const findings: Finding[] = [];
  for (const name of corrColumns) {
    const sides = correlationSides(step.sql, name);
    if (!sides) continue;
    const [x, y] = sides;
    const overallR = overall ? numberOf(overall.row[name]) : null;
    const segments = rows
      .filter((row) => row !== overall && row.count >= MIN_CORRELATION_ROWS && row.label !== '(none)')
      .map((row) => ({ ...row, r: numberOf(row.row[name]) }))
      .filter((row): row is typeof row & { r: number } => row.r !== null);
    if (overall && overallR !== null && Math.abs(overallR) >= STRONG_CORRELATION && overall.count >= MIN_CORRELATION_ROWS) {
      findings.push({
        kind: 'correlation',
        steps: [step.step],
        strength: Math.abs(overallR) * 1.5,
        name: `${capitalised(strengthWord(overallR))} correlation between ${x} and ${y} (r = ${overallR.toFixed(2)} over ${formatCount(overall.count)} ${rowsName})`,
        description: `Over all ${formatCount(overall.count)} ${rowsName} (step ${step.step}), ${x} and ${y} have a ${strengthWord(overallR)} correlation (Pearson r = ${overallR.toFixed(2)}): ${overallR > 0 ? `higher ${x} goes with higher ${y}` : `higher ${x} goes with lower ${y}`}. By group: ${segments
          .slice(0, 6)
          .map((row) => `${row.label} r = ${row.r.toFixed(2)} (${formatCount(row.count)})`)
          .join(', ')}.`,
        severity: Math.abs(overallR) >= 0.7 ? 'medium' : 'low',
        affectedCount: overall.count,
        confidence: confidenceOf(overall.count),
        riskScore: roundMetric(Math.abs(overallR) * 0.5),
        metrics: {
          [name]: roundMetric(overallR),
          segment_column: VALUE_COLUMN,
          segment_value: ALL_ROWS_LABEL,
          recount_where: JSON.stringify({ [DIMENSION_COLUMN]: ALL_ROWS_LABEL }),
          count_column: countColumn,
          source_step: step.step,
        },
        indicators: [`r = ${overallR.toFixed(2)}`],
        targetSegment: `all ${rowsName}`,
        dedupeKey: `corr:${name}:all`,
      });
    }
    // the group where the relationship is strongest, when it differs from the whole
    const best = [...segments].sort((left, right) => Math.abs(right.r) - Math.abs(left.r) || (left.label < right.label ? -1 : 1))[0];
    if (
      !best ||
      Math.abs(best.r) < STRONG_CORRELATION ||
      (overallR !== null && Math.abs(best.r - overallR) < SEGMENT_CORRELATION_GAP && Math.abs(overallR) >= STRONG_CORRELATION)
    )
      continue;
    const dimension = humanize(best.column);
    const others = segments.filter((row) => row.column === best.column && row !== best);
    findings.push({
      kind: 'segment_correlation',
      steps: [step.step],
      strength: Math.abs(best.r) * Math.min(1, Math.sqrt(best.count / 100)) * 1.3,
      name: `${best.label}: ${strengthWord(best.r)} correlation between ${x} and ${y} (r = ${best.r.toFixed(2)} over ${formatCount(best.count)} ${rowsName}${overallR !== null ? `, against r = ${overallR.toFixed(2)} over all ${rowsName}` : ''})`,
      description: `Among the ${best.label} ${rowsName} (${dimension}, step ${step.step}), ${x} and ${y} have a ${strengthWord(best.r)} correlation (Pearson r = ${best.r.toFixed(2)} over ${formatCount(best.count)} ${rowsName}): for ${best.label}, ${best.r > 0 ? `higher ${x} goes with higher ${y}` : `higher ${x} goes with lower ${y}`}${overallR !== null ? `, while over all ${rowsName} r = ${overallR.toFixed(2)}` : ''}. Other ${dimension} values: ${others
        .slice(0, 5)
        .map((row) => `${row.label} r = ${row.r.toFixed(2)}`)
        .join(', ')}.`,
      severity: Math.abs(best.r) >= 0.7 ? 'medium' : 'low',
      affectedCount: best.count,
      confidence: confidenceOf(best.count),
      riskScore: roundMetric(Math.abs(best.r) * 0.5),
      metrics: {
        [name]: roundMetric(best.r),
        ...(overallR !== null ? { [`all_rows_${name}`]: roundMetric(overallR) } : {}),
        segment_column: VALUE_COLUMN,
        segment_value: typeof best.raw === 'number' ? best.raw : best.label,
        recount_where: JSON.stringify({ [DIMENSION_COLUMN]: best.column }),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`r = ${best.r.toFixed(2)} for ${best.label}`],
      targetSegment: `${best.label} ${rowsName} (${dimension})`,
      dedupeKey: `corr:${name}:${best.column}:${best.label}`,
    });
  }
  return findings;
}

function capitalised(text: string): string {
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
}

export function findRepeatedRows(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  const repeatedColumn = step.rowColumns.find((name) => /^repeated_/.test(name));
  if (!shape || !repeatedColumn || shape.countColumns.length === 0) return [];
  const countColumn = shape.countColumns[0] as string;
  const allRepeated = numberOf(step.rows[0]?.[`all_${repeatedColumn}`]);
  const allRows = numberOf(step.rows[0]?.[`all_${countColumn}`]);
  if (allRepeated === null || allRows === null || allRows <= 0) return [];
  if (allRepeated < Math.max(MIN_REPEATED_ROWS, allRows * MIN_REPEATED_SHARE)) return [];
  const top = step.rows
    .map((row) => ({
      label: segmentLabel(row[shape.segmentColumn]),
      raw: row[shape.segmentColumn],
      repeated: numberOf(row[repeatedColumn]) ?? 0,
      count: numberOf(row[countColumn]) ?? 0,
    }))
    .sort((left, right) => right.repeated - left.repeated || (left.label < right.label ? -1 : 1))[0];
  if (!top || top.repeated === 0) return [];
  const identity = [
    ...new Set(
      [...(/PARTITION BY (.+?)\) AS copies/.exec(step.sql)?.[1] ?? '').matchAll(/\bt\.("(?:[^"]|"")+"|[A-Za-z_]\w*)/g)].map((item) =>
        humanize((item[1] as string).replace(/^"|"$/g, '')),
      ),
    ),
  ];
  const dimension = dimensionName(step.sql, shape.segmentColumn);
  const rowsName = rowsNoun(countColumn);
  const share = allRepeated / allRows;
  const topShare = top.repeated / allRepeated;
  const single = topShare >= 0.5;
  return [
    {
      kind: 'repeated_rows',
      steps: [step.step],
      strength: Math.min(2, share * 10) * (single ? 1.3 : 1),
      name: `${formatCount(allRepeated)} ${rowsName} (${formatPercent(share)}) repeat another row identically${single ? `, mostly from a single ${dimension}: ${top.label} (${formatCount(top.repeated)})` : ''}`,
      description: `Repeated identical ${rowsName} (step ${step.step}): ${formatCount(allRepeated)} of the ${formatCount(allRows)} ${rowsName} share every value of ${identity.join(', ')} with at least one other row. By ${dimension}, ${top.label} has the most: ${formatCount(top.repeated)} of its ${formatCount(top.count)} ${rowsName} (${formatPercent(top.repeated / Math.max(1, top.count))}), ${formatPercent(topShare)} of all the repeated ${rowsName}. Exact repeats of measured values rarely happen by chance: a significant repetition worth checking for double entries or misunderstandings.`,
      severity: share >= 0.1 ? 'high' : 'medium',
      affectedCount: top.repeated,
      confidence: confidenceOf(allRepeated),
      riskScore: roundMetric(Math.min(1, share * 3)),
      metrics: {
        [`all_${repeatedColumn}`]: allRepeated,
        [`share_${repeatedColumn}`]: roundMetric(share),
        [repeatedColumn]: top.repeated,
        segment_column: shape.segmentColumn,
        segment_value: typeof top.raw === 'number' ? top.raw : top.label,
        count_column: repeatedColumn,
        source_step: step.step,
      },
      indicators: [`${formatPercent(share)} of ${rowsName} repeated`, `${top.label}: ${formatCount(top.repeated)}`],
      targetSegment: `repeated ${rowsName} of ${top.label} (${dimension})`,
      dedupeKey: `repeated:${step.step}`,
    },
  ];
}
