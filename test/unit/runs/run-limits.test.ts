import { describe, expect, it } from 'vitest';
import { assertStepBounds, parseStepCount } from '../../../src/common/run-limits.js';
import { discoverBodySchema } from '../../../src/api/schemas.js';
import { ValidationError } from '../../../src/errors/index.js';

describe('when a step count is typed on the command line', () => {
  it.each(['0', '501', '100000', 'abc', '-1', '2.5', ''])('refuses "%s" with the same rule the API states', (text) => {
    const attempt = () => parseStepCount('max_steps', '--max-steps', text);
    expect(attempt).toThrowError(ValidationError);
    expect(attempt).toThrowError(`--max-steps must be a whole number from 1 to 500, got "${text}"`);
  });

  it('accepts the bounds themselves', () => {
    expect(parseStepCount('max_steps', '--max-steps', '1')).toBe(1);
    expect(parseStepCount('max_steps', '--max-steps', '500')).toBe(500);
    expect(parseStepCount('min_steps', '--min-steps', '0')).toBe(0);
  });

  it('says which setting exceeds the other when min is above max', () => {
    expect(() => assertStepBounds(3, 5, { maxSteps: '--max-steps', minSteps: '--min-steps' })).toThrowError(
      '--min-steps (5) must not exceed --max-steps (3)',
    );
  });
});

describe('when an API body names a step count', () => {
  it.each([0, 501, 2.5])('refuses max_steps %s with the rule the CLI states', (value) => {
    const parsed = discoverBodySchema.safeParse({ max_steps: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual(['must be a whole number from 1 to 500']);
  });

  it('refuses a string where a number belongs, with the same rule', () => {
    expect(discoverBodySchema.safeParse({ max_steps: 'abc' }).error?.issues[0]?.message).toBe('must be a whole number from 1 to 500');
  });
});
