import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../../src/errors/index.js';
import { childLogger, createLogger } from '../../../src/logging/index.js';

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logging', () => {
  it('binds run, job, queue and step on every line of a child logger', () => {
    const out = capture();
    const logger = childLogger(createLogger({ format: 'json', destination: out.stream }), {
      runId: 'r1',
      jobId: 'r1-explore-3',
      queue: 'explore',
      step: 3,
    });
    logger.info('step done');
    expect(out.lines()[0]).toMatchObject({ runId: 'r1', jobId: 'r1-explore-3', queue: 'explore', step: 3, msg: 'step done' });
  });

  it('redacts API keys and prompts', () => {
    const out = capture();
    const logger = createLogger({ format: 'json', destination: out.stream });
    logger.info({ apiKey: 'sk-123', request: { prompt: 'SECRET PROMPT TEXT', messages: [{ content: 'x' }] } }, 'call');
    const text = JSON.stringify(out.lines()[0]);
    expect(text).not.toContain('sk-123');
    expect(text).not.toContain('SECRET PROMPT TEXT');
  });

  it('logs an SDK-style error without its request body', () => {
    const out = capture();
    const logger = createLogger({ format: 'json', destination: out.stream });
    const native = Object.assign(new Error('prompt is too long'), { requestBodyValues: { messages: ['WHOLE PROMPT'] } });
    const error = new LlmError(
      'prompt is too long: 10 tokens > 5 maximum',
      { kind: 'context_overflow', isRetryable: false, provider: 'anthropic' },
      { cause: native },
    );
    logger.error({ err: error }, 'llm failed');
    const line = out.lines()[0]!;
    expect(JSON.stringify(line)).not.toContain('WHOLE PROMPT');
    expect((line.err as Record<string, unknown>).code).toBe('llm_context_overflow');
  });
});
