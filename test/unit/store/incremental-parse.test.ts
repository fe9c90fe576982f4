import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { runSchema, type Run } from '../../../src/domain/index.js';
import { parseChanged } from '../../../src/store/incremental-parse.js';
import { cloneJson, jsonEqual } from '../../../src/store/json-document.js';
import { reviseRun } from '../../../src/store/run-revision.js';
import { realisticLlmCall, realisticRun } from '../../support/realistic-run.js';
import { applyEdits, edit } from './mutations.js';

const previous = realisticRun('r1');

function outcome(parse: () => Run): { value: string } | { error: string } {
  try {
    return { value: JSON.stringify(parse()) };
  } catch (error) {
    expect(error).toBeInstanceOf(ZodError);
    return { error: (error as ZodError).message };
  }
}

describe('parseChanged', () => {
  it('returns exactly what the full parse returns (same keys in the same order), or throws the same error', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        const next = applyEdits(previous, edits);
        const report = { exact: false };
        let result: Run | undefined;
        const incremental = outcome(() => {
          result = parseChanged(runSchema, previous, next, report);
          return result;
        });
        const full = outcome(() => runSchema.parse(next));
        expect(incremental).toEqual(full);
        // the report says whether the input already was the result (no default added, no key dropped)
        if (result) expect(report.exact).toBe(jsonEqual(result, next));
      }),
      { numRuns: 400 },
    );
  });

  it('reports a stored document that lacks defaults or holds unknown keys as not exact', () => {
    const report = { exact: true };
    const { recoveries: _recoveries, ...withoutDefault } = cloneJson(previous);
    expect(parseChanged(runSchema, previous, withoutDefault, report).recoveries).toBe(0);
    expect(report.exact).toBe(false);
    parseChanged(runSchema, previous, { ...cloneJson(previous), unknown_key: 1 }, report);
    expect(report.exact).toBe(false);
    parseChanged(runSchema, previous, cloneJson(previous), report);
    expect(report.exact).toBe(true);
    parseChanged(runSchema, undefined, { ...cloneJson(previous), unknown_key: 1 }, report);
    expect(report.exact).toBe(false);
  });

  it('gives back an unchanged document itself, and reuses every part an update left alone', () => {
    expect(parseChanged(runSchema, previous, cloneJson(previous))).toBe(previous);
    const next = cloneJson(previous);
    next.telemetry.llm_calls.push(realisticLlmCall(900));
    const parsed = parseChanged(runSchema, previous, next);
    expect(parsed.areas).toBe(previous.areas);
    expect(parsed.telemetry.usage_by_phase).toBe(previous.telemetry.usage_by_phase);
    expect(parsed.telemetry.llm_calls[0]).toBe(previous.telemetry.llm_calls[0]);
    expect(parsed.telemetry.llm_calls).toHaveLength(previous.telemetry.llm_calls.length + 1);
  });

  it('still validates the parts that changed, with the full path in the error', () => {
    const next = cloneJson(previous) as unknown as { areas: Array<{ insights: Array<{ severity: string }> }> };
    (next.areas[2]?.insights[1] as { severity: string }).severity = 'apocalyptic';
    expect(() => parseChanged(runSchema, previous, next)).toThrow(/areas.*2.*insights.*1.*severity|severity/);
    const message = outcome(() => parseChanged(runSchema, previous, next as unknown as Run));
    expect(message).toEqual(outcome(() => runSchema.parse(next)));
  });
});

describe('reviseRun', () => {
  it('hands the mutator a copy, so a mutator that edits in place leaves the current run alone', () => {
    const before = JSON.stringify(previous);
    const next = reviseRun(previous, (run) => {
      run.status = 'completed';
      run.areas[0]?.insights.pop();
      return run;
    });
    expect(JSON.stringify(previous)).toBe(before);
    expect(next.status).toBe('completed');
    expect(next.areas[0]?.insights).toHaveLength((previous.areas[0]?.insights.length ?? 0) - 1);
    expect(next.areas[1]).toBe(previous.areas[1]);
  });

  it('keeps the id and stamps updated_at, whatever the mutator returns', () => {
    const next = reviseRun(previous, (run) => ({ ...run, id: 'other', updated_at: 'yesterday' }), new Date('2027-01-01T00:00:00Z'));
    expect(next.id).toBe('r1');
    expect(next.updated_at).toBe('2027-01-01T00:00:00.000Z');
  });
});
