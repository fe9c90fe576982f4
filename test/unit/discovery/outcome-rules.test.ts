import { describe, expect, it } from 'vitest';
import { classifyVerification, decideRunType, runStatusFor } from '../../../src/discovery/outcome-rules.js';

describe('classifyVerification', () => {
  it.each([
    [1000, 1000, 'confirmed'],
    [1000, 1200, 'confirmed'],
    [1000, 800, 'confirmed'],
    [1000, 1201, 'adjusted'],
    [1000, 799, 'adjusted'],
    [1000, 3, 'adjusted'],
    [1000, 0, 'rejected'],
  ] as const)('claimed %d, verified %d → %s', (claimed, verified, status) => {
    expect(classifyVerification(claimed, verified).status).toBe(status);
  });

  it('skips a claim of 0 or no claim without querying', () => {
    expect(classifyVerification(0, null).status).toBe('skipped');
    expect(classifyVerification(null, 5).status).toBe('skipped');
  });

  it('reports a failed verification query as error with its message', () => {
    const outcome = classifyVerification(100, null, 'column "devise" does not exist');
    expect(outcome.status).toBe('error');
    expect(outcome.reasoning).toContain('devise');
  });

  it('treats a non-numeric result as error, not as rejected', () => {
    expect(classifyVerification(100, null).status).toBe('error');
    expect(classifyVerification(100, Number.NaN).status).toBe('error');
  });
});

describe('decideRunType', () => {
  const completed = { status: 'completed' as const };
  const failed = { status: 'failed' as const };

  it('is full when every area completed and exploration ended normally', () => {
    expect(decideRunType({ cancelled: false, areas: [completed, completed], explorationFailed: false })).toBe('full');
  });

  it('is partial when some areas failed', () => {
    expect(decideRunType({ cancelled: false, areas: [completed, failed], explorationFailed: false })).toBe('partial');
  });

  it('is partial when a statement timed out even if every area completed', () => {
    expect(decideRunType({ cancelled: false, areas: [completed, completed], explorationFailed: false, queryTimeouts: 1 })).toBe('partial');
    expect(decideRunType({ cancelled: false, areas: [completed, completed], explorationFailed: false, queryTimeouts: 0 })).toBe('full');
  });

  it('is partial when exploration broke off on an LLM failure even if all areas completed', () => {
    expect(decideRunType({ cancelled: false, areas: [completed], explorationFailed: true })).toBe('partial');
  });

  it('is failed when all areas failed, and the run is then not completed', () => {
    const type = decideRunType({ cancelled: false, areas: [failed, failed], explorationFailed: false });
    expect(type).toBe('failed');
    expect(runStatusFor(type)).toBe('failed');
  });

  it('is failed on a fatal error and cancelled on cancellation', () => {
    expect(decideRunType({ cancelled: false, areas: [completed], explorationFailed: false, fatalError: 'warehouse unreachable' })).toBe(
      'failed',
    );
    expect(decideRunType({ cancelled: true, areas: [completed], explorationFailed: false })).toBe('cancelled');
  });

  it('counts skipped areas as not completed', () => {
    expect(decideRunType({ cancelled: false, areas: [completed, { status: 'skipped' }], explorationFailed: false })).toBe('partial');
  });
});
