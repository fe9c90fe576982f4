/** Bedrock error classifier: Converse's modelled exceptions mapped onto `LlmError`. */
import { BedrockRuntimeServiceException } from '@aws-sdk/client-bedrock-runtime';
import { LlmError, type LlmErrorKind } from '../../errors/index.js';
import { classifyTransportError, errorFromHttpAnswer, parsePromptTooLong, unexpectedError, type ClassifyContext } from './errors.js';

/** Exception name → kind. `ValidationException` is decided by its message (see below). */
const EXCEPTION_KINDS: Record<string, LlmErrorKind> = {
  ThrottlingException: 'rate_limit',
  // "resubmit your request later": a quota window, waited out like a rate limit
  ServiceQuotaExceededException: 'rate_limit',
  ModelTimeoutException: 'timeout',
  AccessDeniedException: 'auth',
  UnrecognizedClientException: 'auth',
  InvalidSignatureException: 'auth',
  ExpiredTokenException: 'auth',
  ServiceUnavailableException: 'transient',
  InternalServerException: 'transient',
  ModelNotReadyException: 'transient',
  ModelErrorException: 'transient',
  ModelStreamErrorException: 'transient',
  ResourceNotFoundException: 'invalid_request',
  ValidationException: 'invalid_request',
};

/** The service status when the SDK recorded none (a modelled exception always has one in practice). */
const STATUS_BY_KIND: Record<LlmErrorKind, number> = {
  context_overflow: 400,
  invalid_request: 400,
  auth: 403,
  rate_limit: 429,
  timeout: 408,
  transient: 500,
  aborted: 499,
  malformed_output: 500,
};

/**
 * "The model returned the following errors: prompt is too long: N tokens > M maximum" (Claude on
 * Bedrock) and "Input is too long for requested model." (other models) arrive as a plain
 * `ValidationException`: only the message tells them apart from other bad requests.
 */
export function classifyBedrockError(error: unknown, context: ClassifyContext = { provider: 'bedrock' }): LlmError {
  if (error instanceof LlmError) return error;
  if (context.signal?.aborted || !(error instanceof BedrockRuntimeServiceException)) {
    return classifyTransportError(error, context) ?? unexpectedError(error, context);
  }
  const kind = EXCEPTION_KINDS[error.name];
  const status = error.$metadata.httpStatusCode ?? STATUS_BY_KIND[kind ?? 'transient'];
  return errorFromHttpAnswer(
    {
      status,
      providerMessage: error.message,
      headers: error.$response?.headers,
      kind,
      overflow: error.name === 'ValidationException' ? parsePromptTooLong(error.message) : undefined,
    },
    context,
    error,
  );
}
