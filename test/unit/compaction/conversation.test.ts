import { describe, expect, it } from 'vitest';
import {
  COMPACT_ASST_KEEP,
  COMPACT_HISTORY_MAX_CHARS,
  COMPACT_KEEP_TAIL,
  COMPACT_TOOL_KEEP,
  DROP_BLOCKS_OF_GROWTH,
  MEMORY_ASST_KEEP,
  compactConversation,
  compactConversationParts,
  type ConversationMessage,
} from '../../../src/compaction/conversation.js';
import { seededRandom } from './fixtures.js';

const totalChars = (messages: readonly ConversationMessage[]): number => messages.reduce((sum, message) => sum + message.content.length, 0);

/** The exploration conversation as the explore handler rebuilds it after `stepCount` steps. */
function explorationConversation(stepCount: number): ConversationMessage[] {
  const random = seededRandom(1);
  const text = (length: number, word: string): string => `${word} `.repeat(Math.ceil(length / (word.length + 1))).slice(0, length);
  const messages: ConversationMessage[] = [
    { role: 'system', content: text(2500, 'system') },
    { role: 'user', content: text(3000, 'task') },
  ];
  for (let step = 1; step <= stepCount; step += 1) {
    messages.push({ role: 'assistant', kind: 'assistant', content: text(500 + Math.floor(random() * 900), 'thinking') });
    if (step % 4 === 0) messages.push({ role: 'user', kind: 'tool_result', content: text(1200 + Math.floor(random() * 2000), 'schema') });
    else
      messages.push({
        role: 'user',
        kind: 'query_result',
        content: text(2000 + Math.floor(random() * 8000), 'row'),
        digestOneLiner: `step ${step} · 2,000 rows · cols: ${text(150, 'col')}`,
      });
  }
  return messages;
}

describe('compactConversation', () => {
  it('keeps system messages, the opening task and the last turns verbatim', () => {
    const messages = explorationConversation(20);
    const compacted = compactConversation(messages);
    expect(compacted.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(compacted.slice(-COMPACT_KEEP_TAIL)).toEqual(messages.slice(-COMPACT_KEEP_TAIL));
  });

  it('shortens older turns with a visible marker', () => {
    const messages: ConversationMessage[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'a'.repeat(1000) },
      { role: 'user', kind: 'tool_result', content: 't'.repeat(1000) },
      { role: 'assistant', content: 'short' },
      { role: 'user', kind: 'query_result', content: 'r'.repeat(5000), digestOneLiner: 'step 2 · 10 rows' },
      ...Array.from(
        { length: COMPACT_KEEP_TAIL },
        (_, index): ConversationMessage => ({ role: index % 2 === 0 ? 'assistant' : 'user', content: 'x'.repeat(2000) }),
      ),
    ];
    const compacted = compactConversation(messages);
    expect(compacted[1]?.content).toBe(`${'a'.repeat(COMPACT_ASST_KEEP)}…(+${1000 - COMPACT_ASST_KEEP} chars)`);
    expect(compacted[2]?.content).toBe(`${'t'.repeat(COMPACT_TOOL_KEEP)}…(+${1000 - COMPACT_TOOL_KEEP} chars)`);
    expect(compacted[3]?.content).toBe('short');
    expect(compacted[4]?.content).toBe('[result digest] step 2 · 10 rows');
    expect(compacted.slice(-COMPACT_KEEP_TAIL).every((message) => message.content.length === 2000)).toBe(true);
  });

  it('cuts memory notes over 800 characters wherever they are', () => {
    const compacted = compactConversation([
      { role: 'user', content: 'task' },
      { role: 'assistant', kind: 'memory', content: 'm'.repeat(900) },
    ]);
    expect(compacted[1]?.content).toBe(`${'m'.repeat(MEMORY_ASST_KEEP)}…(+300 chars)`);
  });

  it('does not change the messages it was given', () => {
    const messages = explorationConversation(30);
    const copy = structuredClone(messages);
    compactConversation(messages);
    expect(messages).toEqual(copy);
  });

  describe('when the run grows from 10 to 100 and 300 steps', () => {
    // The verbatim tail is the latest turns at any step; the bound is on everything else.
    const beyondTail = (stepCount: number): number => {
      const messages = explorationConversation(stepCount);
      return totalChars(compactConversation(messages)) - totalChars(messages.slice(-COMPACT_KEEP_TAIL));
    };

    it(`grows by at most the history cap (${COMPACT_HISTORY_MAX_CHARS} chars) over step 10, and then not at all`, () => {
      const at10 = beyondTail(10);
      const at100 = beyondTail(100);
      const at300 = beyondTail(300);
      expect(at100).toBeLessThanOrEqual(at10 + COMPACT_HISTORY_MAX_CHARS + 100);
      expect(Math.abs(at300 - at100)).toBeLessThanOrEqual(1_000);
      expect(totalChars(compactConversation(explorationConversation(100)))).toBeLessThan(totalChars(explorationConversation(100)) / 10);
    });

    it('says how many earlier messages were left out and keeps roles alternating', () => {
      const compacted = compactConversation(explorationConversation(100));
      const marked = compacted.find((message) => message.content.startsWith('[… '));
      expect(marked?.content).toMatch(/^\[… \d+ earlier messages omitted to keep the prompt bounded …\]/);
      const roles = compacted.filter((message) => message.role !== 'system').map((message) => message.role);
      for (let index = 1; index < roles.length; index += 1) expect(roles[index]).not.toBe(roles[index - 1]);
    });
  });
});

describe('when messages leave the verbatim tail several at a time (tailGrowth)', () => {
  const growth = 8;

  it('keeps between COMPACT_KEEP_TAIL and COMPACT_KEEP_TAIL + growth - 1 messages verbatim', () => {
    for (let steps = 3; steps <= 60; steps += 1) {
      const messages = explorationConversation(steps);
      const { messages: compacted, stableEnd } = compactConversationParts(messages, { tailGrowth: growth });
      const tail = compacted.length - 1 - stableEnd;
      expect(tail, `after ${steps} steps`).toBeGreaterThanOrEqual(Math.min(COMPACT_KEEP_TAIL, messages.length - 2));
      expect(tail, `after ${steps} steps`).toBeLessThan(COMPACT_KEEP_TAIL + growth);
      expect(compacted.slice(stableEnd + 1)).toEqual(messages.slice(messages.length - tail));
    }
  });

  it('only appends between the moments messages leave the tail, so each prompt extends the one before', () => {
    let extensions = 0;
    for (let steps = 4; steps <= 60; steps += 1) {
      const before = compactConversation(explorationConversation(steps - 1), { tailGrowth: growth });
      const after = compactConversation(explorationConversation(steps), { tailGrowth: growth });
      if (after.slice(0, before.length).every((message, index) => message.content === before[index]?.content)) extensions += 1;
    }
    // 57 steps: the tail moves every 4th step, and the history cap drops a block now and then
    expect(extensions).toBeGreaterThanOrEqual(40);
    const seed = [4, 5, 6, 7, 8].filter((steps) => {
      const before = compactConversation(explorationConversation(steps - 1));
      const after = compactConversation(explorationConversation(steps));
      return after.slice(0, before.length).every((message, index) => message.content === before[index]?.content);
    });
    expect(seed).toEqual([]);
  });

  it('keeps the shortened history before the tail unchanged when the tail moves, until the cap drops a block', () => {
    const before = compactConversationParts(explorationConversation(10), { tailGrowth: growth });
    const after = compactConversationParts(explorationConversation(11), { tailGrowth: growth });
    expect(after.stableEnd).toBeGreaterThan(before.stableEnd);
    expect(after.messages.slice(0, before.stableEnd + 1)).toEqual(before.messages.slice(0, before.stableEnd + 1));
  });

  it('drops old messages in blocks of DROP_BLOCKS_OF_GROWTH × growth and still keeps the shortened history under the cap', () => {
    for (const steps of [60, 120, 300]) {
      const { messages: compacted, stableEnd } = compactConversationParts(explorationConversation(steps), { tailGrowth: growth });
      const marker = /\[… (\d+) earlier messages omitted/.exec(compacted[2]?.content ?? '');
      expect(marker, `after ${steps} steps`).not.toBeNull();
      expect(Number(marker?.[1]) % (growth * DROP_BLOCKS_OF_GROWTH)).toBeLessThanOrEqual(1);
      expect(totalChars(compacted.slice(2, stableEnd + 1)) - (marker?.[0].length ?? 0)).toBeLessThanOrEqual(COMPACT_HISTORY_MAX_CHARS + 2);
    }
  });
});
