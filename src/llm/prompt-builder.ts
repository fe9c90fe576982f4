/**
 * The budgeted prompt builder: every prompt Assay sends is assembled here from prioritised
 * sections and fitted to `min(contextWindow - maxOutput, maxInput) - margin`, measured with
 * `estimateTokens` on the exact strings that will be sent. Lowest-priority sections shrink
 * first (compact, truncate, or drop, as each section allows); sections that may not shrink are
 * sent verbatim. If those alone do not fit, it throws — it never returns an over-budget prompt.
 */
import { DATA_RULE, openFenceCloser } from './data-fence.js';
import { AssayError } from '../errors/index.js';
import type { CacheBreakpoint, LlmMessage, LlmRequest } from './port.js';
import { estimateTokens, type TokenFamily } from './tokens.js';

export type SectionRole = 'system' | 'user' | 'assistant';

/** How a section may give way when the prompt is over budget. */
export type SectionShrink =
  | 'none'
  | 'truncate'
  | 'drop'
  /** A section-specific compactor (digest, summary). Its result is truncated further if still too big. */
  | { compact: (text: string, targetTokens: number) => string };

export interface PromptSection {
  id: string;
  role: SectionRole;
  text: string;
  /** Higher = kept longer. Ties shrink in input order (earlier first: older turns go before newer ones). */
  priority: number;
  shrink: SectionShrink;
  /** Truncation and compaction stop at this size; below it the section is kept at this size or, for `drop`, removed. */
  minTokens?: number;
  /**
   * A stable prefix ends after this section: providers with prompt caching may cache everything up to here.
   * Honoured where the section ends its message (or the system prompt); a mark in the middle of a merged
   * message would end on text that changes, so it is left out. It never changes what the prompt holds.
   */
  cacheBreakpoint?: boolean;
}

export interface PromptBudget {
  contextWindow: number;
  maxOutputTokens: number;
  maxInputTokens?: number | undefined;
  family: TokenFamily;
  /** A tighter budget than the catalog's (used after a provider reported an overflow). */
  budgetTokensCap?: number | undefined;
  /** Input tokens the request spends outside the sections (tool definitions, a response schema). */
  reservedTokens?: number | undefined;
}

export interface PromptAdjustment {
  sectionId: string;
  action: 'dropped' | 'truncated' | 'compacted';
  fromTokens: number;
  toTokens: number;
  reason: string;
}

export interface BuiltPrompt {
  system: string;
  messages: LlmMessage[];
  /** The sections' tokens plus the reserved tokens: what the request costs as input. */
  estimatedTokens: number;
  budgetTokens: number;
  adjustments: PromptAdjustment[];
  /** Where marked stable prefixes end in the rendered prompt, in order. */
  cacheBreakpoints: CacheBreakpoint[];
}

/** Never less than this: covers role/format tokens the estimate does not see and tokenizer drift. */
export const SAFETY_MARGIN_MIN_TOKENS = 512;
/** 2 % of the window: grows with the window because tokenizer drift is proportional to the prompt. */
export const SAFETY_MARGIN_RATIO = 0.02;
/** Per message (and for the system prompt): role markers and separators in the chat formats. */
export const MESSAGE_OVERHEAD_TOKENS = 8;
/** Sent when drops would leave the conversation without a leading user turn, which every provider requires. */
export const OMITTED_TURNS_PLACEHOLDER = '[Earlier conversation omitted to fit the prompt budget.]';
/** Joins adjacent sections that render into one message (or into the system prompt). */
const SECTION_SEPARATOR = '\n\n';

/** The prompt cannot fit: the sections that may not shrink already exceed the budget. */
export class PromptBudgetExceededError extends AssayError {
  constructor(message: string, details: { budgetTokens: number; estimatedTokens: number; fixedSections: string[] }) {
    super('llm_context_overflow', message, { details });
  }
}

/**
 * Input tokens of a request's tool definitions and response schema, measured on the JSON the adapters send.
 * The builder reserves them, and the offline provider and the simulator count them, the same way.
 */
export function toolDefinitionTokens(request: Pick<LlmRequest, 'tools' | 'responseFormat'>, family: TokenFamily): number {
  const tools = request.tools ?? [];
  if (tools.length === 0 && !request.responseFormat) return 0;
  return estimateTokens(JSON.stringify({ tools, ...(request.responseFormat ? { format: request.responseFormat } : {}) }), family);
}

export function safetyMarginTokens(contextWindow: number): number {
  return Math.max(SAFETY_MARGIN_MIN_TOKENS, Math.ceil(contextWindow * SAFETY_MARGIN_RATIO));
}

/** Input tokens a prompt may use: `min(window - maxOutput, maxInput) - margin`, optionally capped tighter. */
export function promptBudgetTokens(budget: Omit<PromptBudget, 'family'>): number {
  const room = Math.min(budget.contextWindow - budget.maxOutputTokens, budget.maxInputTokens ?? Number.POSITIVE_INFINITY);
  const fromCatalog = room - safetyMarginTokens(budget.contextWindow);
  return Math.max(0, Math.min(fromCatalog, budget.budgetTokensCap ?? Number.POSITIVE_INFINITY));
}

export function truncationMarker(removedChars: number): string {
  return `\n[… truncated ${removedChars} chars to fit the prompt budget …]`;
}

/** The head of `text` cut at `length`: a data section the cut leaves open is closed before the marker. */
function cutAt(text: string, length: number): string {
  const head = text.slice(0, length);
  return head + openFenceCloser(head) + truncationMarker(text.length - length);
}

/** The longest head of `text` that, with its truncation marker, estimates at most `targetTokens`; undefined if none does. */
export function truncateToTokens(text: string, targetTokens: number, family: TokenFamily): string | undefined {
  const fits = (length: number): boolean => estimateTokens(cutAt(text, length), family) <= targetTokens;
  if (!fits(0)) return undefined;
  let low = 0;
  let high = text.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  let keep = low;
  // Never split a surrogate pair: half an emoji is not valid text.
  if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) keep -= 1;
  // a closing marker the shorter head needs may not fit where the longer head's did (the search is not monotone there)
  while (keep > 0 && !fits(keep)) keep -= 1;
  return cutAt(text, keep);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

interface Rendered {
  system: string;
  messages: LlmMessage[];
  estimatedTokens: number;
  cacheBreakpoints: CacheBreakpoint[];
}

/**
 * Render the current texts (undefined = dropped): system sections joined, same-role neighbours merged, first
 * turn a user turn. `reserved` tokens (tool definitions) are added to the estimate.
 */
function render(sections: readonly PromptSection[], texts: ReadonlyArray<string | undefined>, family: TokenFamily, reserved = 0): Rendered {
  const systemParts: string[] = [];
  const messages: LlmMessage[] = [];
  /** Per rendered section: where it went and whether it asked for a breakpoint. */
  const placed: Array<{ at: 'system' | number; mark: boolean }> = [];
  sections.forEach((section, index) => {
    const text = texts[index];
    if (text === undefined || text === '') return;
    if (section.role === 'system') {
      systemParts.push(text);
      placed.push({ at: 'system', mark: section.cacheBreakpoint === true });
      return;
    }
    const last = messages[messages.length - 1];
    if (last && last.role === section.role) last.content += SECTION_SEPARATOR + text;
    else messages.push({ role: section.role, content: text });
    placed.push({ at: messages.length - 1, mark: section.cacheBreakpoint === true });
  });
  const shifted = messages[0]?.role !== 'user';
  if (shifted) messages.unshift({ role: 'user', content: OMITTED_TURNS_PLACEHOLDER });
  // every system prompt says that fenced warehouse text is data (src/llm/data-fence.ts)
  const system = [...systemParts, DATA_RULE].join(SECTION_SEPARATOR);
  const estimatedTokens =
    reserved +
    (system === '' ? 0 : estimateTokens(system, family) + MESSAGE_OVERHEAD_TOKENS) +
    messages.reduce((sum, message) => sum + estimateTokens(message.content, family) + MESSAGE_OVERHEAD_TOKENS, 0);
  return { system, messages, estimatedTokens, cacheBreakpoints: breakpointsOf(placed, shifted) };
}

/** A marked section ends a stable prefix only when nothing else was rendered into the same place after it. */
function breakpointsOf(placed: ReadonlyArray<{ at: 'system' | number; mark: boolean }>, shifted: boolean): CacheBreakpoint[] {
  const breakpoints: CacheBreakpoint[] = [];
  placed.forEach((entry, index) => {
    if (!entry.mark) return;
    const endsItsPlace = !placed.slice(index + 1).some((later) => later.at === entry.at);
    if (!endsItsPlace) return;
    breakpoints.push(entry.at === 'system' ? { after: 'system' } : { after: 'message', index: entry.at + (shifted ? 1 : 0) });
  });
  return breakpoints;
}

/** Shrink order: lowest priority first, then input order. Sections marked `none` never shrink. */
function shrinkOrder(sections: readonly PromptSection[]): number[] {
  return sections
    .map((section, index) => ({ section, index }))
    .filter(({ section }) => section.shrink !== 'none')
    .sort((a, b) => a.section.priority - b.section.priority || a.index - b.index)
    .map(({ index }) => index);
}

/** Rounds of shrinking one section: merging into a message can make the total differ slightly from the section's own estimate. */
const MAX_SHRINK_ROUNDS = 6;

/**
 * Fit `sections` into the budget. Returns the system prompt, the alternating messages (first
 * one `user`), the estimate of what is sent, the budget, and every adjustment made.
 * Throws PromptBudgetExceededError when even the sections that may not shrink exceed the budget.
 */
export function buildPrompt(sections: readonly PromptSection[], budget: PromptBudget): BuiltPrompt {
  const { family } = budget;
  const budgetTokens = promptBudgetTokens(budget);
  const reserved = budget.reservedTokens ?? 0;
  const texts: Array<string | undefined> = sections.map((section) => section.text);
  const adjustments: PromptAdjustment[] = [];
  let rendered = render(sections, texts, family, reserved);

  for (const index of shrinkOrder(sections)) {
    if (rendered.estimatedTokens <= budgetTokens) break;
    const section = sections[index]!;
    const fromTokens = estimateTokens(section.text, family);
    const floor = section.shrink === 'drop' ? 0 : (section.minTokens ?? 0);
    let adjustment: Pick<PromptAdjustment, 'action' | 'reason'> | undefined;
    for (let round = 0; round < MAX_SHRINK_ROUNDS && rendered.estimatedTokens > budgetTokens; round += 1) {
      const current = texts[index];
      if (current === undefined) break;
      const currentTokens = estimateTokens(current, family);
      const excess = rendered.estimatedTokens - budgetTokens;
      const target = Math.max(currentTokens - excess, floor);
      if (target >= currentTokens) break;
      // Always shrink from the original text, so the marker counts what was really removed.
      const shrunk = section.shrink === 'drop' || target <= 0 ? undefined : shrinkText(section.text, target, section.shrink, family);
      if (shrunk === undefined && floor > 0) break;
      texts[index] = shrunk?.text;
      adjustment =
        shrunk === undefined
          ? {
              action: 'dropped',
              reason:
                section.shrink === 'drop'
                  ? `over budget by ${excess} tokens; lowest-priority droppable section`
                  : `over budget by ${excess} tokens; no room for even a truncated head`,
            }
          : { action: shrunk.compacted ? 'compacted' : 'truncated', reason: `over budget by ${excess} tokens` };
      rendered = render(sections, texts, family, reserved);
    }
    if (adjustment !== undefined) {
      const finalText = texts[index];
      adjustments.push({
        sectionId: section.id,
        ...adjustment,
        fromTokens,
        toTokens: finalText === undefined ? 0 : estimateTokens(finalText, family),
      });
    }
  }

  if (rendered.estimatedTokens > budgetTokens) {
    const fixedSections = sections
      .filter((section, index) => texts[index] !== undefined && section.shrink === 'none')
      .map((section) => section.id);
    throw new PromptBudgetExceededError(
      `prompt needs ${rendered.estimatedTokens} tokens but the budget is ${budgetTokens} (window ${budget.contextWindow}, output ${budget.maxOutputTokens}); ` +
        `the sections that may not shrink (${fixedSections.join(', ') || 'none'})${reserved > 0 ? ` and ${reserved} tokens of tool definitions` : ''} are too large — shorten them or use a model with a larger window`,
      { budgetTokens, estimatedTokens: rendered.estimatedTokens, fixedSections },
    );
  }
  return {
    system: rendered.system,
    messages: rendered.messages,
    estimatedTokens: rendered.estimatedTokens,
    budgetTokens,
    adjustments,
    cacheBreakpoints: rendered.cacheBreakpoints,
  };
}

function shrinkText(
  text: string,
  targetTokens: number,
  shrink: SectionShrink,
  family: TokenFamily,
): { text: string; compacted: boolean } | undefined {
  if (typeof shrink === 'object') {
    const compacted = shrink.compact(text, targetTokens);
    if (estimateTokens(compacted, family) <= targetTokens) return { text: compacted, compacted: true };
    const truncated = truncateToTokens(compacted, targetTokens, family);
    return truncated === undefined ? undefined : { text: truncated, compacted: true };
  }
  const truncated = truncateToTokens(text, targetTokens, family);
  return truncated === undefined ? undefined : { text: truncated, compacted: false };
}
