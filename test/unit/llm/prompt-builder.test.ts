import { DATA_RULE } from '../../../src/llm/data-fence.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MESSAGE_OVERHEAD_TOKENS,
  OMITTED_TURNS_PLACEHOLDER,
  PromptBudgetExceededError,
  buildPrompt,
  promptBudgetTokens,
  safetyMarginTokens,
  truncateToTokens,
  type PromptSection,
  type SectionShrink,
} from '../../../src/llm/prompt-builder.js';
import { estimateTokens } from '../../../src/llm/tokens.js';

const WORDS = ['revenue', 'user_id', 'SELECT', '12,345', '{"a":1}', 'churn', '東京', 'drop', 'cohort', '🎮', '\n'];

function text(words: number, seed = 0): string {
  return Array.from({ length: words }, (_, index) => WORDS[(index * 7 + seed) % WORDS.length]).join(' ');
}

function section(id: string, overrides: Partial<PromptSection> & Pick<PromptSection, 'role' | 'text'>): PromptSection {
  return { id, priority: 0, shrink: 'none', ...overrides };
}

const window = (contextWindow: number) => ({ contextWindow, maxOutputTokens: 1_000, family: 'anthropic' as const });

describe('when computing the budget', () => {
  it('subtracts the output and a margin of max(512, 2 %) from the window, and respects an input cap', () => {
    expect(safetyMarginTokens(10_000)).toBe(512);
    expect(safetyMarginTokens(200_000)).toBe(4_000);
    expect(promptBudgetTokens({ contextWindow: 200_000, maxOutputTokens: 8_000 })).toBe(188_000);
    expect(promptBudgetTokens({ contextWindow: 400_000, maxOutputTokens: 8_000, maxInputTokens: 272_000 })).toBe(264_000);
    expect(promptBudgetTokens({ contextWindow: 200_000, maxOutputTokens: 8_000, budgetTokensCap: 90_000 })).toBe(90_000);
  });
});

describe('when everything fits', () => {
  it('renders system sections into the system prompt and alternating messages, unchanged', () => {
    const built = buildPrompt(
      [
        section('base', { role: 'system', text: 'You are Assay.' }),
        section('rules', { role: 'system', text: 'SELECT only.' }),
        section('q1', { role: 'user', text: 'Begin.' }),
        section('a1', { role: 'assistant', text: '{"action":"query"}' }),
        section('r1', { role: 'user', text: 'rows: 3' }),
      ],
      window(100_000),
    );
    expect(built.system).toBe(`You are Assay.\n\nSELECT only.\n\n${DATA_RULE}`);
    expect(built.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(built.adjustments).toEqual([]);
    const expected =
      estimateTokens(built.system, 'anthropic') +
      built.messages.reduce((sum, message) => sum + estimateTokens(message.content, 'anthropic'), 0);
    expect(built.estimatedTokens).toBe(expected + 4 * MESSAGE_OVERHEAD_TOKENS);
  });
});

describe('when the prompt is over budget', () => {
  const big = text(3_000);

  it('drops the lowest-priority droppable section first and records it', () => {
    const built = buildPrompt(
      [
        section('system', { role: 'system', text: 'rules' }),
        section('old-turn', { role: 'user', text: big, priority: 1, shrink: 'drop' }),
        section('catalog', { role: 'user', text: text(200), priority: 5, shrink: 'drop' }),
        section('ask', { role: 'user', text: 'Next step.' }),
      ],
      window(4_000),
    );
    expect(built.adjustments.map((adjustment) => [adjustment.sectionId, adjustment.action])).toEqual([['old-turn', 'dropped']]);
    expect(built.messages[0]!.content).toContain(text(200));
    expect(built.estimatedTokens).toBeLessThanOrEqual(built.budgetTokens);
  });

  it('truncates keeping the head and appends a visible marker with the removed size', () => {
    const built = buildPrompt([section('results', { role: 'user', text: big, shrink: 'truncate' })], window(3_000));
    const content = built.messages[0]!.content;
    const match = /\n\[… truncated (\d+) chars to fit the prompt budget …\]$/.exec(content);
    expect(match).not.toBeNull();
    expect(big.startsWith(content.slice(0, match!.index))).toBe(true);
    expect(match!.index + Number(match![1])).toBe(big.length);
    expect(built.adjustments[0]).toMatchObject({ sectionId: 'results', action: 'truncated' });
    expect(built.adjustments[0]!.toTokens).toBeLessThan(built.adjustments[0]!.fromTokens);
  });

  it('calls a compactor with the target size and truncates its result further if it overshoots', () => {
    const targets: number[] = [];
    const built = buildPrompt(
      [
        section('digest', {
          role: 'user',
          text: big,
          shrink: { compact: (input, target) => (targets.push(target), input.slice(0, input.length / 2)) },
        }),
      ],
      window(3_000),
    );
    expect(targets.length).toBeGreaterThan(0);
    expect(built.adjustments[0]!.action).toBe('compacted');
    expect(built.estimatedTokens).toBeLessThanOrEqual(built.budgetTokens);
  });

  it('keeps a section at its minTokens floor and shrinks others instead', () => {
    const built = buildPrompt(
      [
        section('floor', { role: 'user', text: big, priority: 0, shrink: 'truncate', minTokens: 800 }),
        section('other', { role: 'user', text: big, priority: 1, shrink: 'truncate' }),
      ],
      window(4_000),
    );
    const floor = built.adjustments.find((adjustment) => adjustment.sectionId === 'floor')!;
    // The longest head that fits in 800 tokens: a word or two under, never far below the floor.
    expect(floor.toTokens).toBeGreaterThanOrEqual(795);
    expect(floor.toTokens).toBeLessThanOrEqual(800);
    expect(built.adjustments.map((adjustment) => adjustment.sectionId)).toContain('other');
  });

  it('adds a placeholder user turn when drops leave the conversation starting with the assistant', () => {
    const built = buildPrompt(
      [
        section('first-ask', { role: 'user', text: big, shrink: 'drop' }),
        section('answer', { role: 'assistant', text: 'I will query orders.' }),
        section('result', { role: 'user', text: 'rows: 3' }),
      ],
      window(3_000),
    );
    expect(built.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(built.messages[0]!.content).toBe(OMITTED_TURNS_PLACEHOLDER);
  });

  it('throws instead of returning an over-budget prompt when fixed sections alone are too big', () => {
    expect(() =>
      buildPrompt(
        [section('fixed', { role: 'system', text: big }), section('ask', { role: 'user', text: 'go', shrink: 'drop' })],
        window(2_000),
      ),
    ).toThrow(PromptBudgetExceededError);
  });
});

describe('when truncating to a token target', () => {
  it('never cuts an emoji in half', () => {
    const emoji = '🎮'.repeat(400);
    for (const target of [40, 41, 77, 120]) {
      const truncated = truncateToTokens(emoji, target, 'openai')!;
      const head = truncated.slice(0, truncated.indexOf('\n[…'));
      expect(head.length % 2).toBe(0);
      expect(estimateTokens(truncated, 'openai')).toBeLessThanOrEqual(target);
    }
  });
});

const shrinkArbitrary: fc.Arbitrary<SectionShrink> = fc.oneof(
  fc.constant<SectionShrink>('none'),
  fc.constant<SectionShrink>('truncate'),
  fc.constant<SectionShrink>('drop'),
  fc.constant<SectionShrink>({ compact: (input: string) => input.slice(0, Math.floor(input.length / 3)) }),
  fc.constant<SectionShrink>({ compact: (input: string) => input + input }),
);

const sectionArbitrary = fc.record({
  role: fc.constantFrom<PromptSection['role']>('system', 'user', 'assistant'),
  words: fc.integer({ min: 0, max: 1_500 }),
  seed: fc.integer({ min: 0, max: 10 }),
  priority: fc.integer({ min: 0, max: 5 }),
  shrink: shrinkArbitrary,
  minTokens: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
});

describe('for any sections, priorities, strategies and budgets', () => {
  it('returns a prompt within budget with fixed sections intact and alternating turns, or throws', () => {
    fc.assert(
      fc.property(
        fc.array(sectionArbitrary, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1_500, max: 40_000 }),
        (specs, contextWindow) => {
          const sections = specs.map((spec, index) =>
            section(`s${index}`, {
              role: spec.role,
              text: text(spec.words, spec.seed),
              priority: spec.priority,
              shrink: spec.shrink,
              minTokens: spec.minTokens,
            }),
          );
          let built: ReturnType<typeof buildPrompt>;
          try {
            built = buildPrompt(sections, { contextWindow, maxOutputTokens: 500, family: 'default' });
          } catch (error) {
            expect(error).toBeInstanceOf(PromptBudgetExceededError);
            return;
          }
          expect(built.estimatedTokens).toBeLessThanOrEqual(built.budgetTokens);
          const measured =
            (built.system === '' ? 0 : estimateTokens(built.system, 'default') + MESSAGE_OVERHEAD_TOKENS) +
            built.messages.reduce((sum, message) => sum + estimateTokens(message.content, 'default') + MESSAGE_OVERHEAD_TOKENS, 0);
          expect(measured).toBe(built.estimatedTokens);
          for (const fixed of sections.filter((candidate) => candidate.shrink === 'none' && candidate.text !== '')) {
            const where =
              fixed.role === 'system'
                ? [built.system]
                : built.messages.filter((message) => message.role === fixed.role).map((message) => message.content);
            expect(where.some((content) => content.includes(fixed.text))).toBe(true);
          }
          expect(built.messages[0]?.role).toBe('user');
          built.messages.forEach((message, index) => {
            if (index > 0) expect(message.role).not.toBe(built.messages[index - 1]!.role);
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('when sections mark where a stable prefix ends', () => {
  const budget = { contextWindow: 200_000, maxOutputTokens: 4_000, family: 'anthropic' as const };
  const marked = (id: string, role: 'system' | 'user' | 'assistant', cacheBreakpoint = false): PromptSection => ({
    id,
    role,
    text: `${id} text`,
    priority: 50,
    shrink: 'drop',
    ...(cacheBreakpoint ? { cacheBreakpoint } : {}),
  });

  it('places breakpoints after the system prompt and after the messages that end with a marked section', () => {
    const built = buildPrompt(
      [marked('system', 'system', true), marked('kickoff', 'user', true), marked('a1', 'assistant'), marked('r1', 'user', true)],
      budget,
    );
    expect(built.cacheBreakpoints).toEqual([{ after: 'system' }, { after: 'message', index: 0 }, { after: 'message', index: 2 }]);
  });

  it('leaves out a mark whose section is followed by another in the same message, since that text may change', () => {
    const built = buildPrompt([marked('kickoff', 'user', true), marked('footer', 'user')], budget);
    expect(built.messages).toHaveLength(1);
    expect(built.cacheBreakpoints).toEqual([]);
  });

  it('shifts message breakpoints past the placeholder turn a dropped opening leaves', () => {
    const built = buildPrompt([marked('a1', 'assistant', true), marked('r1', 'user', true)], budget);
    expect(built.messages[0]?.content).toBe(OMITTED_TURNS_PLACEHOLDER);
    expect(built.cacheBreakpoints).toEqual([
      { after: 'message', index: 1 },
      { after: 'message', index: 2 },
    ]);
  });

  it('never changes the text of the prompt', () => {
    const plain = buildPrompt([marked('system', 'system'), marked('kickoff', 'user')], budget);
    const withMarks = buildPrompt([marked('system', 'system', true), marked('kickoff', 'user', true)], budget);
    expect({ system: withMarks.system, messages: withMarks.messages, tokens: withMarks.estimatedTokens }).toEqual({
      system: plain.system,
      messages: plain.messages,
      tokens: plain.estimatedTokens,
    });
  });

  it('counts reserved tool-definition tokens in the estimate and fits the sections into what is left', () => {
    const sections = [marked('system', 'system'), { ...marked('big', 'user'), text: 'word '.repeat(4_000), shrink: 'truncate' as const }];
    const plain = buildPrompt(sections, { ...budget, budgetTokensCap: 3_000 });
    const reserved = buildPrompt(sections, { ...budget, budgetTokensCap: 3_000, reservedTokens: 1_000 });
    expect(reserved.estimatedTokens).toBeLessThanOrEqual(3_000);
    expect(reserved.estimatedTokens - 1_000).toBeLessThan(plain.estimatedTokens);
  });
});
