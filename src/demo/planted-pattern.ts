/**
 * A pattern deliberately planted in a demo warehouse, and the truths file that records them so an
 * eval can score whether discovery found them. The truths file is a wire document: snake_case.
 */
import { z } from 'zod';
import { DEMO_KINDS } from './demo-kind.js';

export const expectationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('>'), value: z.number() }),
  z.object({ op: z.literal('<'), value: z.number() }),
  z.object({ op: z.literal('between'), min: z.number(), max: z.number() }),
]);
export type Expectation = z.infer<typeof expectationSchema>;

export const plantedPatternSchema = z.object({
  id: z.string().min(1),
  /** The domain pack's analysis area the pattern belongs to (e.g. `conversion`, `churn`). */
  area: z.string().min(1),
  title: z.string().min(1),
  description: z.string().min(1),
  /** Lower-case words a finding about this pattern would naturally contain. */
  keywords: z.array(z.string().min(1)).min(1),
  /** Qualified tables (`main.orders`) the pattern lives in. */
  tables: z.array(z.string().min(1)).min(1),
  check: z.object({
    /** One SELECT returning one row; its `value` column must satisfy `expect`. */
    sql: z.string().min(1),
    expect: expectationSchema,
  }),
  /** Every numeric column of the check's row, measured on the generated data. */
  evidence_numbers: z.record(z.string(), z.number()),
});
export type PlantedPattern = z.infer<typeof plantedPatternSchema>;

/** A pattern as a generator declares it; evidence is measured after the data exists. */
export type PlantedPatternSpec = Omit<PlantedPattern, 'evidence_numbers'>;

export const demoTruthsSchema = z.object({
  kind: z.enum(DEMO_KINDS),
  seed: z.number().int(),
  scale: z.number().positive(),
  patterns: z.array(plantedPatternSchema),
});
export type DemoTruths = z.infer<typeof demoTruthsSchema>;

/** The column of a check's row that `expect` applies to. */
export const CHECK_VALUE_COLUMN = 'value';

export function meetsExpectation(value: number, expect: Expectation): boolean {
  if (!Number.isFinite(value)) return false;
  switch (expect.op) {
    case '>':
      return value > expect.value;
    case '<':
      return value < expect.value;
    case 'between':
      return value >= expect.min && value <= expect.max;
  }
}

export function describeExpectation(expect: Expectation): string {
  return expect.op === 'between' ? `between ${expect.min} and ${expect.max}` : `${expect.op} ${expect.value}`;
}
