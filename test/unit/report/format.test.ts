import { describe, expect, it } from 'vitest';
import { formatCompact, formatCost, formatDuration, formatNumber, formatTimestamp } from '../../../src/report/format.js';

describe('when numbers are formatted for the report', () => {
  it('groups thousands without depending on the locale', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(-1234.5)).toBe('-1,234.5');
    expect(formatNumber(0.125, 2)).toBe('0.13');
  });

  it('shortens large values for axes', () => {
    expect(formatCompact(12_500)).toBe('12.5k');
    expect(formatCompact(2_000_000)).toBe('2M');
    expect(formatCompact(0.245)).toBe('0.245');
  });

  it('shows sub-dollar costs with four decimals and larger ones in cents', () => {
    expect(formatCost(0.0065)).toBe('$0.0065');
    expect(formatCost(1234.5)).toBe('$1,234.50');
  });

  it('writes durations and timestamps in fixed UTC form', () => {
    expect(formatDuration(3_723_000)).toBe('1 h 2 min 3 s');
    expect(formatDuration(450)).toBe('450 ms');
    expect(formatTimestamp('2025-03-14T09:26:41.000Z')).toBe('2025-03-14 09:26 UTC');
    expect(formatTimestamp('not a date')).toBe('not a date');
  });
});
