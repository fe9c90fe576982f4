import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyJsonOperations, cloneJson, diffJson, jsonEqual } from '../../../src/store/json-document.js';
import { realisticLlmCall, realisticRun } from '../../support/realistic-run.js';
import { applyEdits, edit } from './mutations.js';

const run = realisticRun('r1');

describe('cloneJson and jsonEqual', () => {
  it('copy a document deeply: equal, sharing no object', () => {
    const copy = cloneJson(run);
    expect(jsonEqual(copy, run)).toBe(true);
    expect(copy).toEqual(run);
    expect(copy.areas).not.toBe(run.areas);
    copy.areas[0]?.insights.pop();
    expect(jsonEqual(copy, run)).toBe(false);
  });

  it('treat undefined members as absent, and tell arrays, objects and scalars apart', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(jsonEqual({ a: null }, { a: 0 })).toBe(false);
    expect(jsonEqual([1, [2, { x: 'y' }]], [1, [2, { x: 'y' }]])).toBe(true);
    expect(cloneJson({ a: undefined, b: [undefined] })).toEqual({ b: [undefined] });
  });

  it('keep a "__proto__" key of parsed JSON as data, never as the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(jsonEqual(copy, parsed)).toBe(true);
  });
});

describe('diffJson', () => {
  it('turns any JSON value into any other when its operations are applied in order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (before, after) => {
        const applied = applyJsonOperations(cloneJson(before), diffJson(before, after));
        expect(jsonEqual(applied, after)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('turns a run into any edited version of it', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 5 }), (edits) => {
        const after = applyEdits(run, edits);
        const operations = diffJson(run, after);
        // documents are stored as JSON: an undefined array element, say, is stored (and rebuilt) as null
        const stored = JSON.parse(JSON.stringify(after)) as unknown;
        expect(jsonEqual(applyJsonOperations(cloneJson(run), operations), stored)).toBe(true);
        // operations round-trip through JSON, as journal lines and SQL parameters do
        expect(jsonEqual(applyJsonOperations(cloneJson(run), JSON.parse(JSON.stringify(operations))), stored)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('names only what changed: an appended call, a changed status, a removed key', () => {
    const after = cloneJson(run);
    after.telemetry.llm_calls.push(realisticLlmCall(500));
    after.status = 'completed';
    delete after.exploration_done_reason;
    expect(diffJson(run, after)).toEqual([
      { op: 'set', path: ['status'], value: 'completed' },
      { op: 'append', path: ['telemetry', 'llm_calls'], items: [realisticLlmCall(500)] },
      { op: 'unset', path: ['exploration_done_reason'] },
    ]);
    expect(diffJson(run, cloneJson(run))).toEqual([]);
  });

  it('sets an element of an array in place, after appending to the same array', () => {
    const after = cloneJson(run);
    const area = after.areas[1];
    if (!area) throw new Error('fixture has areas');
    area.status = 'failed';
    after.areas.push({ ...area, area_id: 'extra' });
    const operations = diffJson(run, after);
    expect(operations.map((operation) => [operation.op, operation.path.join('.')])).toEqual([
      ['append', 'areas'],
      ['set', 'areas.1.status'],
    ]);
    expect(applyJsonOperations(cloneJson(run), operations)).toEqual(after);
  });
});
