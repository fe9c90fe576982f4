/**
 * Loop compaction (agent-loop-token-optimization seed): a shortened copy of the exploration conversation
 * for the next LLM call. The stored transcript is never changed; this runs on every rebuild and is pure,
 * so the same history always gives the same prompt.
 *
 * - System messages and the opening task (every message before the first assistant turn) stay whole.
 * - The last COMPACT_KEEP_TAIL messages stay whole.
 * - Older messages are shortened, each with a visible marker: query results become their one-line digest,
 *   tool results over COMPACT_TOOL_MAX keep their first COMPACT_TOOL_KEEP characters, assistant turns
 *   over COMPACT_ASST_MAX keep COMPACT_ASST_KEEP.
 * - Memory notes over MEMORY_ASST_MAX keep MEMORY_ASST_KEEP wherever they are: the seed applies that cut
 *   when a note is stored, so it is part of the note, not of its age.
 * - The shortened middle is itself capped at COMPACT_HISTORY_MAX_CHARS, newest first; older messages are
 *   replaced by a count in a marker. Without that cap the prompt would still grow by a few hundred
 *   characters per step; with it, step 1,000 costs what step 60 does.
 * - With `tailGrowth` G, messages leave the verbatim tail G at a time: the tail holds between
 *   COMPACT_KEEP_TAIL and COMPACT_KEEP_TAIL + G - 1 messages, and everything before it changes only every
 *   G messages; the history cap then drops old messages DROP_BLOCKS_OF_GROWTH × G at a time. Between those
 *   moments the prompt only grows at its end, so a provider's prompt cache reads all of it but the newest
 *   turn, and when messages leave the tail the shortened history before them is still a cached prefix.
 *   The seed's behaviour (G = 1) rewrites a message at the tail's edge on every step, which ends every
 *   cached prefix there.
 */

import { openFenceCloser } from '../llm/data-fence.js';
import { clipText } from './clip.js';

/** Most recent messages kept verbatim: the model needs its latest exchange intact to continue. */
export const COMPACT_KEEP_TAIL = 6;
/** Older tool results longer than this are cut. */
export const COMPACT_TOOL_MAX = 500;
/** Characters of a cut tool result that are kept. */
export const COMPACT_TOOL_KEEP = 300;
/** Older assistant turns longer than this are cut. */
export const COMPACT_ASST_MAX = 300;
/** Characters of a cut assistant turn that are kept. */
export const COMPACT_ASST_KEEP = 200;
/** Memory notes longer than this are cut (verbose analysis write-ups bloat every later prompt). */
export const MEMORY_ASST_MAX = 800;
/** Characters of a cut memory note that are kept. */
export const MEMORY_ASST_KEEP = 600;
/** Characters of shortened history (between the opening and the tail) kept at most; older history is counted, not shown. */
export const COMPACT_HISTORY_MAX_CHARS = 16_000;

export type ConversationRole = 'system' | 'user' | 'assistant' | 'tool';
export type ConversationMessageKind = 'tool_result' | 'assistant' | 'memory' | 'query_result';

export interface ConversationMessage {
  role: ConversationRole;
  content: string;
  kind?: ConversationMessageKind;
  /** For query results: the step's `digestOneLiner`, shown instead of the rows once the message is old. */
  digestOneLiner?: string;
}

export interface CompactionOptions {
  /** Messages that leave the verbatim tail together (see the module comment). @defaultValue 1, the seed's behaviour */
  tailGrowth?: number;
}

/** With a tail growth G, the history cap drops old messages DROP_BLOCKS_OF_GROWTH × G at a time, so the drop point moves rarely too. */
export const DROP_BLOCKS_OF_GROWTH = 4;

/** The compacted conversation, and where its stable part ends. */
export interface CompactedConversation<Message> {
  messages: Message[];
  /**
   * Index (in `messages`) of the last message before the verbatim tail: the opening and the shortened
   * history end there, and they change only when messages leave the tail or the history cap drops some.
   */
  stableEnd: number;
}

export function compactConversation<Message extends ConversationMessage>(
  messages: readonly Message[],
  options: CompactionOptions = {},
): Message[] {
  return compactConversationParts(messages, options).messages;
}

export function compactConversationParts<Message extends ConversationMessage>(
  messages: readonly Message[],
  options: CompactionOptions = {},
): CompactedConversation<Message> {
  const firstAssistant = messages.findIndex((message) => message.role === 'assistant');
  const openingEnd = firstAssistant === -1 ? messages.length : firstAssistant;
  const growth = Math.max(1, Math.floor(options.tailGrowth ?? 1));
  const compactable = Math.max(0, messages.length - openingEnd - COMPACT_KEEP_TAIL);
  const tailStart = openingEnd + Math.floor(compactable / growth) * growth;
  const opening = messages.slice(0, openingEnd).map(truncateMemory);
  const tail = messages.slice(tailStart).map(truncateMemory);
  const middle = messages.slice(openingEnd, tailStart).map(shortenOld);

  // Keep the newest shortened messages that fit the history cap.
  let keptFrom = middle.length;
  let keptChars = 0;
  while (keptFrom > 0) {
    const length = (middle[keptFrom - 1] as Message).content.length;
    if (keptChars + length > COMPACT_HISTORY_MAX_CHARS) break;
    keptChars += length;
    keptFrom -= 1;
  }
  // With a tail growth, drop in blocks, so what is kept changes only when a block goes.
  const dropBlock = growth > 1 ? growth * DROP_BLOCKS_OF_GROWTH : 1;
  if (keptFrom > 0) keptFrom = Math.min(middle.length, Math.ceil(keptFrom / dropBlock) * dropBlock);
  // Drop one more if needed so the message after the gap alternates with the one before it.
  const before = opening.at(-1);
  if (keptFrom > 0 && keptFrom < middle.length && before !== undefined && middle[keptFrom]?.role === before.role) keptFrom += 1;
  if (keptFrom === 0) return { messages: [...opening, ...middle, ...tail], stableEnd: opening.length + middle.length - 1 };
  const kept = middle.slice(keptFrom);
  const marker = `[… ${keptFrom} earlier ${keptFrom === 1 ? 'message' : 'messages'} omitted to keep the prompt bounded …]\n`;
  const [first, ...rest] = kept;
  if (first === undefined) return { messages: [...opening, ...prefixFirst(tail, marker)], stableEnd: opening.length - 1 };
  return {
    messages: [...opening, { ...first, content: marker + first.content }, ...rest, ...tail],
    stableEnd: opening.length + kept.length - 1,
  };
}

function prefixFirst<Message extends ConversationMessage>(messages: Message[], prefix: string): Message[] {
  const [first, ...rest] = messages;
  return first === undefined ? [] : [{ ...first, content: prefix + first.content }, ...rest];
}

function kindOf(message: ConversationMessage): ConversationMessageKind | undefined {
  if (message.kind !== undefined) return message.kind;
  if (message.role === 'tool') return 'tool_result';
  if (message.role === 'assistant') return 'assistant';
  return undefined;
}

function shortenOld<Message extends ConversationMessage>(message: Message): Message {
  switch (kindOf(message)) {
    case 'query_result':
      if (message.digestOneLiner !== undefined) return { ...message, content: `[result digest] ${message.digestOneLiner}` };
      return truncated(message, COMPACT_TOOL_MAX, COMPACT_TOOL_KEEP);
    case 'tool_result':
      return truncated(message, COMPACT_TOOL_MAX, COMPACT_TOOL_KEEP);
    case 'assistant':
      return truncated(message, COMPACT_ASST_MAX, COMPACT_ASST_KEEP);
    case 'memory':
      return truncateMemory(message);
    default:
      return message;
  }
}

function truncateMemory<Message extends ConversationMessage>(message: Message): Message {
  return kindOf(message) === 'memory' ? truncated(message, MEMORY_ASST_MAX, MEMORY_ASST_KEEP) : message;
}

function truncated<Message extends ConversationMessage>(message: Message, max: number, keep: number): Message {
  if (message.content.length <= max) return message;
  // a cut inside a data section (a lookup reply's table detail) closes it, so the section still ends
  const head = message.content.slice(0, keep);
  return { ...message, content: `${clipText(message.content, max, keep)}${openFenceCloser(head)}` };
}
