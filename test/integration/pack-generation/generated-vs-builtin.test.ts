/**
 * On the gaming demo, a pack generated for the warehouse (deterministic path, offline analyst) against
 * the built-in gaming pack. The built-in pack carries the domain's words and outcomes (D7 retention,
 * "progression", "revenue"), which no generated pack can know; what needs none must still be mined with
 * a generated pack: the level most players never finish, and the product that holds most purchases.
 * `npx tsx test/integration/pack-generation/generated-vs-builtin.ts` prints all three demos.
 */
import { describe, expect, it } from 'vitest';
import { compareGeneratedWithBuiltIn } from './generated-vs-builtin.js';

describe('a generated pack on the gaming demo', () => {
  it('mines the patterns that need no domain words, rejects nothing, and the built-in pack finds more', async () => {
    const { builtIn, generated } = await compareGeneratedWithBuiltIn('gaming', 24);
    expect(builtIn.found).toBeGreaterThanOrEqual(3);
    expect(generated.findings.some((text) => /drops to \d+(\.\d)?% for .* at level (number )?12\b/.test(text))).toBe(true);
    expect(generated.findings.some((text) => /^Mega Booster Pack has the most purchases/.test(text))).toBe(true);
    expect(generated.rejected).toBe(0);
  }, 180_000);
});
