/**
 * The Anthropic SDK prints a deprecation notice with `console.warn` on every request that names a
 * deprecated model, so a run printed it once per call, `--quiet` or not. Assay warns once per process
 * itself, through its logger (`warnIfDeprecated` in model-warnings.ts), so the SDK's notice is dropped
 * here. Only that notice is: any other warning passes through unchanged.
 */

/** The SDK's wording (`resources/messages/messages.js`, `resources/beta/messages/messages.js`). */
const SDK_DEPRECATION_NOTICE = /^The model '[^']*' is deprecated and will reach end-of-life/;

/**
 * Runs `start` (the synchronous part of an SDK call, where the SDK checks the model) with the SDK's
 * deprecation notice filtered out of `console.warn`. The SDK warns before its first `await`, and the
 * filter is removed before `start`'s promise is returned, so no other code runs while it is in place.
 */
export function withoutSdkDeprecationNotice<T>(start: () => T): T {
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && SDK_DEPRECATION_NOTICE.test(args[0])) return;
    original.apply(console, args);
  };
  try {
    return start();
  } finally {
    console.warn = original;
  }
}
