/**
 * Prose for measures and segments, from column names: `reached_checkout_sessions_abandon_rate` reads
 * "checkout abandonment", `week5_retention_rate` "week-5 (days 28-34) retention". The words are the
 * data's own (columns, values), plus the plain words an analyst would use for the measure's kind.
 */
import { NEGATIVE_WORDS } from '../planner/measures.js';
import { humanize, singular, wordsOf } from '../text.js';

export interface MeasureWords {
  /** Short phrase for names: "checkout abandonment". */
  phrase: string;
  /** Words that say what the measure is about, for descriptions ("repeat purchase retention"). */
  gloss: string;
  /** Whether a higher value is worse. */
  negative: boolean;
  /** Whether a higher value is known to be better (retention, conversion, repeat); neither flag: no known direction. */
  positive?: boolean;
  /** Unit written after values (`days`), none for counts, rates and amounts. */
  unit?: string;
}

/** The child table an analyst query counted (`FROM main.orders c`), when the SQL shows it. */
export function childTableOf(sql: string): string | undefined {
  const match = /FROM\s+([\w."]+)\s+c\b/i.exec(sql);
  return match ? (match[1] as string).replace(/"/g, '').split('.').at(-1) : undefined;
}

/** `level_number` → `level`: an ordinal named by its scale. */
export function ordinalName(column: string): string {
  return humanize(column.replace(/^furthest_/, '').replace(/_(number|no|num|index|idx)$/i, ''));
}

export function describeMeasure(column: string, baseCount: string | undefined, sql: string): MeasureWords {
  const child = childTableOf(sql);
  const childWords = child ? humanize(singular(child)) : 'child row';
  let match: RegExpExecArray | null;
  if ((match = /^(.*)_abandon_rate$/.exec(column))) {
    const flag = baseCount && match[1] === baseCount ? baseCount : (match[1] as string);
    const table = baseCount ? (wordsOf(baseCount).at(-1) ?? 'rows') : 'rows';
    const flagWords = humanize(flag.replace(new RegExp(`_${table}$`), ''));
    const step = wordsOf(flagWords).at(-1) ?? flagWords;
    return {
      phrase: `${step} abandonment`,
      gloss: `share of ${table} that ${flagWords} but never became a${/^[aeiou]/.test(childWords) ? 'n' : ''} ${childWords} (funnel drop-off)`,
      negative: true,
    };
  }
  if ((match = /^d(\d+)_retention_rate$/.exec(column)))
    return {
      phrase: `D${match[1]} retention`,
      gloss: `share active again on day ${match[1]} (day-${match[1]} return); the rest churn`,
      negative: false,
      positive: true,
    };
  if ((match = /^week(\d+)_retention_rate$/.exec(column)))
    return {
      phrase: `week-${match[1]} retention`,
      gloss: `share active in week ${match[1]} (days ${(Number(match[1]) - 1) * 7}-${Number(match[1]) * 7 - 1}); the rest churn`,
      negative: false,
      positive: true,
    };
  if (/_repeat_rate$/.test(column))
    return {
      phrase: 'repeat rate',
      gloss: `share of ${baseCount ? humanize(baseCount) : 'rows'} with two or more ${humanize(child ?? 'child rows')} (repeat behaviour, retention)`,
      negative: false,
      positive: true,
    };
  if ((match = /^with_(.+)_rate$/.exec(column))) {
    const name = match[1] as string;
    const negative = NEGATIVE_WORDS.test(name);
    return {
      phrase: negative ? `${humanize(singular(name))} rate` : `share with ${humanize(name)}`,
      gloss: negative
        ? `share of rows with at least one ${humanize(singular(name))}`
        : `share of rows with at least one ${humanize(singular(name))} (conversion)`,
      negative,
      positive: !negative,
    };
  }
  if ((match = /^avg_(.+)_(\d+)d_per_(.+)$/.exec(column))) {
    return {
      phrase: `${match[2]}-day ${humanize(match[1] as string)} per ${humanize(match[3] as string)}`,
      gloss: `average ${humanize(match[1] as string)} per ${humanize(match[3] as string)} in the first ${match[2]} days (${match[2]}-day cohort value)`,
      negative: false,
      positive: true,
    };
  }
  if ((match = /^avg_(.+)_per_(.+)$/.exec(column))) {
    const what = match[1] as string;
    const per = match[2] as string;
    const engagement = child && what === child.toLowerCase() ? ' (engagement)' : '';
    return {
      phrase: `${humanize(what)} per ${humanize(per)}`,
      gloss: `average ${humanize(what)} per ${humanize(per)}${engagement}`,
      negative: NEGATIVE_WORDS.test(what),
    };
  }
  if ((match = /^avg_days_(.+)_to_(.+)$/.exec(column)) || (match = /^avg_days_()to_(.+)$/.exec(column))) {
    const from = humanize(match[1] as string) || 'start';
    const to = humanize(match[2] as string);
    // `processed` → processing time, `closed` → closing time: the activity that ends at the milestone
    const last = to.split(' ').at(-1) ?? to;
    const activity = /[a-z]{3,}ed$/.test(last) ? `${last.slice(0, -2)}ing time` : '';
    return {
      phrase: activity ? `average ${activity} (from ${from} to ${to})` : `average time from ${from} to ${to}`,
      gloss: `average duration in days from ${from} to ${to}, over the rows that have a ${to} time (open rows without one are left out)`,
      negative: false,
      unit: 'days',
    };
  }
  if ((match = /^avg_(.+)$/.exec(column)))
    return {
      phrase: `average ${humanize(match[1] as string)}`,
      gloss: `average ${humanize(match[1] as string)}`,
      negative: NEGATIVE_WORDS.test(match[1] as string),
    };
  if ((match = /^(.+)_rate$/.exec(column))) {
    const name = match[1] as string;
    return { phrase: `${humanize(name)} rate`, gloss: `share of rows that are ${humanize(name)}`, negative: NEGATIVE_WORDS.test(name) };
  }
  return { phrase: humanize(column), gloss: humanize(column), negative: NEGATIVE_WORDS.test(column) };
}
