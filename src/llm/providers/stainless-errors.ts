/**
 * Classifier shared by the two Stainless-generated SDKs (`@anthropic-ai/sdk`, `openai`): they have the
 * same error hierarchy (APIError with status + headers, APIUserAbortError, APIConnectionError,
 * APIConnectionTimeoutError) and differ only in how a body says "prompt too long".
 */
import { LlmError } from '../../errors/index.js';
import {
  abortedError,
  classifyTransportError,
  connectionError,
  errorFromHttpAnswer,
  timeoutError,
  unexpectedError,
  type ClassifyContext,
  type PromptTooLong,
} from './errors.js';

type ErrorClass = abstract new (...args: never[]) => Error;

/** The part of a Stainless `APIError` the classifier reads. */
export type StainlessApiError = Error & { status: number | undefined; headers: Headers | undefined };

/** The error classes a Stainless SDK exports as static members of its client. */
export interface StainlessErrorClasses<TApiError extends StainlessApiError> {
  APIError: abstract new (...args: never[]) => TApiError;
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
}

export interface StainlessDialect<TApiError extends StainlessApiError> {
  classes: StainlessErrorClasses<TApiError>;
  /** The provider's own message from the error body (the SDK's `message` is prefixed with the status). */
  providerMessage(error: TApiError): string;
  /** Set when the answer means "prompt too long"; `undefined` otherwise. */
  overflow(error: TApiError, providerMessage: string): PromptTooLong | undefined;
}

export function classifyStainlessError<TApiError extends StainlessApiError>(
  error: unknown,
  context: ClassifyContext,
  dialect: StainlessDialect<TApiError>,
): LlmError {
  if (error instanceof LlmError) return error;
  const { classes } = dialect;
  if (error instanceof classes.APIUserAbortError || context.signal?.aborted) return abortedError(context, error);
  if (error instanceof classes.APIConnectionTimeoutError) return timeoutError(context, error);
  if (error instanceof classes.APIConnectionError) return classifyTransportError(error.cause, context) ?? connectionError(context, error);
  if (error instanceof classes.APIError && error.status !== undefined) {
    const providerMessage = dialect.providerMessage(error);
    return errorFromHttpAnswer(
      { status: error.status, providerMessage, headers: error.headers, overflow: dialect.overflow(error, providerMessage) },
      context,
      error,
    );
  }
  return classifyTransportError(error, context) ?? unexpectedError(error, context);
}
