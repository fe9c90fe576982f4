import { describe, expect, it } from 'vitest';
import { countQueryTimeouts, describeQueryTimeouts, totalQueryTimeouts } from '../../../src/discovery/query-timeouts.js';
import { QueryTimeoutError, WarehouseError, describeError, isQueryTimeout } from '../../../src/errors/index.js';

const timedOut = describeError(new QueryTimeoutError(30_000));

describe('a statement timeout', () => {
  it('is a warehouse error that says which limit stopped it and what to change', () => {
    const error = new QueryTimeoutError(30_000);
    expect(error).toBeInstanceOf(WarehouseError);
    expect(error.code).toBe('warehouse');
    expect(error.timeoutMs).toBe(30_000);
    expect(error.message).toMatch(/timed out after 30000 ms.*ASSAY_SQL_TIMEOUT_MS/);
  });

  it('is recognised from the error and from the text it was stored as, and other failures are not', () => {
    expect(isQueryTimeout(new QueryTimeoutError(100))).toBe(true);
    expect(isQueryTimeout(`the recount query failed: ${timedOut}`)).toBe(true);
    expect(isQueryTimeout(new WarehouseError('Binder Error: column "x" not found'))).toBe(false);
    expect(isQueryTimeout('Binder Error: column "x" not found')).toBe(false);
  });
});

describe('counting the timeouts of a run', () => {
  const validation = (status: 'confirmed' | 'error', reasoning: string) => ({
    validation: { status, reasoning, verified_count: null, validated_at: '2026-01-01T00:00:00.000Z' },
  });

  it('counts per stage: exploration steps, mining statements and verification recounts', () => {
    const timeouts = countQueryTimeouts({
      steps: [
        { action: 'query', error: timedOut },
        { action: 'query', error: 'Parser Error: syntax error at or near "FORM"' },
        { action: 'query' },
        { action: 'lookup_schema' },
      ],
      mining: { timed_out_queries: 2 },
      insights: [
        validation('error', `the recount query failed: ${timedOut}`),
        validation('error', 'the recount query failed: Binder Error'),
        validation('confirmed', 'within tolerance'),
      ] as never,
    });
    expect(timeouts).toEqual({ exploration: 1, mining: 2, verification: 1 });
    expect(totalQueryTimeouts(timeouts)).toBe(4);
    expect(describeQueryTimeouts(timeouts)).toBe('4 queries timed out (exploration 1, mining 2, verification 1)');
  });

  it('says nothing when no statement timed out', () => {
    const timeouts = countQueryTimeouts({ steps: [{ action: 'query' }], insights: [] });
    expect(totalQueryTimeouts(timeouts)).toBe(0);
    expect(describeQueryTimeouts(timeouts)).toBeUndefined();
  });

  it('names one query in the singular', () => {
    expect(describeQueryTimeouts({ exploration: 0, mining: 1, verification: 0 })).toBe('1 query timed out (mining 1)');
  });
});
