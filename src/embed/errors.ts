/** Normalises an embedding provider's failure into an LlmError (or CancelledError when we aborted it). */
import { CancelledError, LlmError, describeError, type LlmErrorKind } from '../errors/index.js';

/** The HTTP statuses worth retrying: timeout, conflict, rate limit, server errors. */
function kindForStatus(status: number | undefined): LlmErrorKind {
  if (status === undefined) return 'transient';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status === 409 || status >= 500) return 'transient';
  return 'invalid_request';
}

export function embedderError(
  provider: string,
  error: unknown,
  options: { status?: number | undefined; signal?: AbortSignal | undefined },
): Error {
  if (options.signal?.aborted) return new CancelledError(`${provider} embedding cancelled`, { cause: error });
  if (error instanceof LlmError || error instanceof CancelledError) return error;
  const kind = kindForStatus(options.status);
  const retryable = kind === 'rate_limit' || kind === 'timeout' || kind === 'transient';
  return new LlmError(
    `${provider} embedding failed${options.status === undefined ? '' : ` (HTTP ${options.status})`}: ${describeError(error)}`,
    { kind, status: options.status, isRetryable: retryable, provider },
    { cause: error },
  );
}

/** A provider answered, but not with what the embedding contract promises. */
export function malformedEmbedding(provider: string, message: string): LlmError {
  return new LlmError(`${provider} embedding response malformed: ${message}`, { kind: 'malformed_output', isRetryable: false, provider });
}
