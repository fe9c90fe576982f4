/**
 * Issue 15, item 7: on the gaming demo, a pack generated for the warehouse (deterministic path,
 * offline analyst) finds at least as many planted patterns as the built-in gaming pack, by the strict
 * eval. `npx tsx test/integration/pack-generation/generated-vs-builtin.ts` prints all three demos.
 */
import { describe, expect, it } from 'vitest';
import { compareGeneratedWithBuiltIn } from './generated-vs-builtin.js';

describe('a generated pack on the gaming demo', () => {
  it('finds at least as many planted patterns as the built-in pack', async () => {
    const { builtIn, generated, pack } = await compareGeneratedWithBuiltIn('gaming', 24);
    expect(builtIn.found).toBeGreaterThan(0);
    expect(
      generated.found,
      `generated ${generated.found}/${generated.planted} vs built-in ${builtIn.found}/${builtIn.planted} (areas ${pack.proposal.areas.map((area) => area.id).join(', ')})`,
    ).toBeGreaterThanOrEqual(builtIn.found);
    expect(generated.rejected).toBe(0);
  }, 120_000);
});
