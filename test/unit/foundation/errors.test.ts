import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_MAPPING,
  LlmContextOverflowError,
  LlmError,
  NotFoundError,
  UnsafeSqlError,
  ValidationError,
  exitCodeFor,
  httpStatusFor,
} from '../../../src/errors/index.js';

describe('error mapping', () => {
  it('gives every code an exit code and an HTTP status', () => {
    for (const code of ERROR_CODES) {
      expect(ERROR_MAPPING[code].exitCode).toBeGreaterThan(0);
      expect(ERROR_MAPPING[code].httpStatus).toBeGreaterThanOrEqual(400);
    }
  });

  it('maps a refused query to exit 3 and a bad body to 400', () => {
    expect(exitCodeFor(new UnsafeSqlError('only SELECT is allowed'))).toBe(3);
    expect(httpStatusFor(new ValidationError('bad body', [{ path: 'max_steps', message: 'too big' }]))).toBe(400);
    expect(httpStatusFor(new NotFoundError('no run r1'))).toBe(404);
  });

  it('treats unknown throwables as internal', () => {
    expect(exitCodeFor(new Error('boom'))).toBe(1);
    expect(httpStatusFor('string thrown')).toBe(500);
  });

  describe('when an LLM error carries a huge provider message', () => {
    it('keeps the message short so prompts never reach logs or job records', () => {
      const error = new LlmError('x'.repeat(10_000), { kind: 'transient', isRetryable: true, provider: 'openai' });
      expect(error.message.length).toBeLessThanOrEqual(501);
      expect(error.code).toBe('llm');
    });
  });

  it('classifies a context overflow as not retryable with its own code', () => {
    const error = new LlmContextOverflowError('prompt is too long', {
      provider: 'anthropic',
      reportedPromptTokens: 210_000,
      reportedMaxTokens: 200_000,
    });
    expect(error.code).toBe('llm_context_overflow');
    expect(error.info.isRetryable).toBe(false);
    expect(error.info.reportedPromptTokens).toBe(210_000);
  });
});
