/** Periods of a time axis: positions one apart, period starts as claims write them, names as people say them. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type PeriodGrain,
  isPeriodGrain,
  isoMillis,
  nextPeriodStart,
  periodName,
  periodPosition,
  periodStart,
  previousPeriodStart,
} from '../../../../src/discovery/statistics/periods.js';

const GRAINS: PeriodGrain[] = ['hour', 'day', 'week', 'month', 'quarter', 'year'];

describe('isoMillis', () => {
  it('reads a date, a naive timestamp (as UTC) and a zoned one', () => {
    expect(isoMillis('2024-03-01')).toBe(Date.UTC(2024, 2, 1));
    expect(isoMillis('2024-03-01 13:30:00')).toBe(Date.UTC(2024, 2, 1, 13, 30));
    expect(isoMillis('2024-03-01T13:30:00+02:00')).toBe(Date.UTC(2024, 2, 1, 11, 30));
    expect(Number.isNaN(isoMillis('not a date'))).toBe(true);
  });
});

describe('periodPosition', () => {
  it('puts consecutive months one apart across a year boundary, and quarters and years too', () => {
    expect(periodPosition('2024-01-01', 'month') - periodPosition('2023-12-01', 'month')).toBe(1);
    expect(periodPosition('2024-01-01', 'quarter') - periodPosition('2023-10-01', 'quarter')).toBe(1);
    expect(periodPosition('2024-01-01', 'year')).toBe(2024);
  });

  it('puts consecutive days, weeks and hours one apart, whatever the month length or leap day', () => {
    expect(periodPosition('2024-03-01', 'day') - periodPosition('2024-02-29', 'day')).toBe(1);
    expect(periodPosition('2024-03-04', 'week') - periodPosition('2024-02-26', 'week')).toBe(1);
    expect(periodPosition('2024-03-31 00:00:00', 'hour') - periodPosition('2024-03-30 23:00:00', 'hour')).toBe(1);
  });

  it('moves by exactly one from a period start to the next, for every grain', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1950-01-01'), max: new Date('2080-01-01'), noInvalidDate: true }),
        fc.constantFrom(...GRAINS),
        (date, grain) => {
          // a period start the way the engine reads it back: truncated by the warehouse
          const start = periodStart(truncate(date, grain), grain);
          expect(periodPosition(nextPeriodStart(start, grain), grain) - periodPosition(start, grain)).toBe(1);
          expect(previousPeriodStart(nextPeriodStart(start, grain), grain)).toBe(start);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** What date_trunc returns (weeks start on Monday). */
function truncate(date: Date, grain: PeriodGrain): string {
  const d = new Date(date.getTime());
  switch (grain) {
    case 'year':
      return new Date(Date.UTC(d.getUTCFullYear(), 0, 1)).toISOString();
    case 'quarter':
      return new Date(Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1)).toISOString();
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString();
    case 'week': {
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      const weekday = (new Date(day).getUTCDay() + 6) % 7;
      return new Date(day - weekday * 86_400_000).toISOString();
    }
    case 'day':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString();
    case 'hour':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours())).toISOString();
  }
}

describe('period starts and names', () => {
  it('writes a start as a date, or a date and time for hours', () => {
    expect(periodStart('2024-07-01T00:00:00.000Z', 'month')).toBe('2024-07-01');
    expect(periodStart('2024-07-01 13:00:00', 'hour')).toBe('2024-07-01 13:00:00');
  });

  it('steps over month ends and year ends', () => {
    expect(nextPeriodStart('2024-01-31', 'day')).toBe('2024-02-01');
    expect(nextPeriodStart('2024-12-01', 'month')).toBe('2025-01-01');
    expect(nextPeriodStart('2024-10-01', 'quarter')).toBe('2025-01-01');
    expect(previousPeriodStart('2024-01-01', 'week')).toBe('2023-12-25');
    expect(previousPeriodStart('2024-03-01', 'day')).toBe('2024-02-29');
  });

  it('names periods the way people do', () => {
    expect(periodName('2024-07-01', 'month')).toBe('July 2024');
    expect(periodName('2024-07-01', 'quarter')).toBe('2024-Q3');
    expect(periodName('2024-01-01', 'year')).toBe('2024');
    expect(periodName('2024-03-11', 'week')).toBe('the week of 2024-03-11');
    expect(periodName('2024-03-11 20:00:00', 'hour')).toBe('2024-03-11 20:00');
  });

  it('tells period grains from calendar positions', () => {
    expect(isPeriodGrain('month')).toBe(true);
    expect(isPeriodGrain('month_of_year')).toBe(false);
    expect(isPeriodGrain(undefined)).toBe(false);
  });
});
