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

/**
 * The AWS SDK's switch for its once-per-process `NodeVersionSupportWarning` (releases after January 2027
 * will need Node 22; Assay supports Node 20). A quiet run sets it, as documented by the SDK, so no SDK
 * notice reaches a `--quiet` run; an explicit value in the environment is left as it is.
 */
export const AWS_NODE_VERSION_NOTICE_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

export function silenceSdkNotices(env: NodeJS.ProcessEnv = process.env): void {
  env[AWS_NODE_VERSION_NOTICE_SWITCH] ??= 'true';
}
