import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors/index.js';
import { DEMO_KINDS, describeExpectation, meetsExpectation, parseDemoKind } from '../../../src/demo/index.js';
import { demoDatasetFor } from '../../../src/demo/datasets/index.js';
import { plantedPatternSchema } from '../../../src/demo/planted-pattern.js';

describe('when a check value is compared with its expectation', () => {
  it('applies >, < and an inclusive between', () => {
    expect(meetsExpectation(3, { op: '>', value: 2.5 })).toBe(true);
    expect(meetsExpectation(2.5, { op: '>', value: 2.5 })).toBe(false);
    expect(meetsExpectation(0.4, { op: '<', value: 0.5 })).toBe(true);
    expect(meetsExpectation(0.5, { op: '<', value: 0.5 })).toBe(false);
    expect(meetsExpectation(2.3, { op: 'between', min: 2.3, max: 3.8 })).toBe(true);
    expect(meetsExpectation(3.81, { op: 'between', min: 2.3, max: 3.8 })).toBe(false);
  });
  it('never accepts a missing (NaN) value', () => {
    expect(meetsExpectation(Number.NaN, { op: '<', value: 1 })).toBe(false);
  });
  it('describes the expectation for error messages', () => {
    expect(describeExpectation({ op: 'between', min: 1, max: 2 })).toBe('between 1 and 2');
    expect(describeExpectation({ op: '>', value: 3 })).toBe('> 3');
  });
});

describe('when the user names a demo kind', () => {
  it('accepts every documented kind', () => {
    for (const kind of DEMO_KINDS) expect(parseDemoKind(kind)).toBe(kind);
  });
  it('rejects an unknown kind with a ValidationError naming the allowed kinds', () => {
    expect(() => parseDemoKind('retail')).toThrow(ValidationError);
    expect(() => parseDemoKind('retail')).toThrow(/ecommerce, gaming, social, erp/);
  });
});

describe('when the generators declare their planted patterns', () => {
  const expectedAreas: Record<string, string[]> = {
    ecommerce: ['conversion', 'revenue', 'retention'],
    gaming: ['churn', 'engagement', 'monetization'],
    social: ['growth', 'engagement', 'retention'],
    erp: ['finance', 'sales', 'inventory'],
  };

  for (const kind of DEMO_KINDS) {
    describe(`for ${kind}`, () => {
      const patterns = demoDatasetFor(kind).patterns;

      it('declares at least three patterns with unique ids prefixed by the kind', () => {
        expect(patterns.length).toBeGreaterThanOrEqual(3);
        expect(new Set(patterns.map((pattern) => pattern.id)).size).toBe(patterns.length);
        for (const pattern of patterns) expect(pattern.id.startsWith(`${kind}-`)).toBe(true);
      });

      it("uses only the kind's analysis areas and covers each of them", () => {
        const areas = new Set(patterns.map((pattern) => pattern.area));
        expect([...areas].sort()).toEqual([...(expectedAreas[kind] ?? [])].sort());
      });

      it('has lower-case keywords, qualified tables named in its check SQL, and a SELECT check', () => {
        for (const pattern of patterns) {
          expect(plantedPatternSchema.safeParse({ ...pattern, evidence_numbers: {} }).success).toBe(true);
          for (const keyword of pattern.keywords) expect(keyword).toBe(keyword.toLowerCase());
          for (const table of pattern.tables) {
            expect(table).toMatch(/^[a-z_]+\.[a-z_0-9]+$/);
            expect(pattern.check.sql).toContain(table);
          }
          expect(pattern.check.sql.trimStart()).toMatch(/^(WITH|SELECT)\b/);
          expect(pattern.check.sql).toMatch(/\bAS value\b/);
        }
      });
    });
  }
});
