/**
 * A step's reasoning (`thinking`) as a reader can read it. A model may carry notes for its own later
 * turns in it — the offline analyst keeps its scratchpad there as a deflated, hex-encoded
 * `[notes:…]` tag — which mean nothing on the page: such tagged blobs and bare runs of hex are dropped,
 * and what is left is shown, or nothing when no words are left.
 */

/** `[label:payload]` with a long opaque payload (hex, base64, base64url). */
const TAGGED_BLOB = /\[[A-Za-z][\w-]*:[A-Za-z0-9+/=_-]{16,}\]/g;
/** 32 or more hex digits in a row: a hash or an encoded payload, never prose. */
const HEX_RUN = /\b[0-9a-fA-F]{32,}\b/g;
const LETTER = /\p{L}/u;

export function readableThinking(thinking: string): string {
  const text = thinking.replace(TAGGED_BLOB, ' ').replace(HEX_RUN, ' ').replace(/\s+/g, ' ').trim();
  return LETTER.test(text) ? text : '';
}
