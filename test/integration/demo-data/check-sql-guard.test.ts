import { describe, expect, it } from 'vitest';
import { assertSafeSql } from '../../../src/warehouse/index.js';
import { demoDatasetFor } from '../../../src/demo/datasets/index.js';
import { DEMO_KINDS } from '../../../src/demo/index.js';

describe("when an eval runs the planted patterns' checks through the agent's guarded SQL path", () => {
  for (const kind of DEMO_KINDS) {
    for (const pattern of demoDatasetFor(kind).patterns) {
      it(`accepts ${pattern.id} as a read-only SELECT`, async () => {
        await expect(assertSafeSql(pattern.check.sql, 'duckdb')).resolves.not.toThrow();
      });
    }
  }
});
