/**
 * One model call whose reply must parse, with reformat retries: a rejected reply is kept in the
 * conversation (shortened) and followed by a nudge that says what was wrong and what shape to use.
 */
import type { PromptSection } from '../../llm/prompt-builder.js';
import { askLlm, type AskOptions } from '../llm-gateway.js';
import type { DiscoveryDeps } from '../context.js';

/** A rejected reply is echoed back at most this long. */
const ECHOED_REPLY_MAX_CHARS = 2_000;

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface AskUntilParsedOptions<T> extends AskOptions {
  parse(reply: string): ParseOutcome<T>;
  nudge(reason: string): string;
  /** Reformat retries after the first reply. */
  retries: number;
}

/** `promptTokens`: the largest prompt of the attempts; `promptTokensTotal`: all of them together. */
export type AskUntilParsedResult<T> =
  | { ok: true; value: T; retries: number; promptTokens: number; promptTokensTotal: number }
  | { ok: false; reason: string; retries: number; promptTokens: number; promptTokensTotal: number };

/** Model errors propagate to the caller; only parse failures are retried here. */
export async function askUntilParsed<T>(
  deps: Pick<DiscoveryDeps, 'store' | 'logger'>,
  options: AskUntilParsedOptions<T>,
): Promise<AskUntilParsedResult<T>> {
  const sections: PromptSection[] = [...options.sections];
  let promptTokens = 0;
  let promptTokensTotal = 0;
  let reason = '';
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    const reply = await askLlm(deps, { ...options, sections });
    promptTokens = Math.max(promptTokens, reply.record.prompt_tokens_estimated);
    promptTokensTotal += reply.record.prompt_tokens_estimated;
    const parsed = options.parse(reply.text);
    if (parsed.ok) return { ok: true, value: parsed.value, retries: attempt, promptTokens, promptTokensTotal };
    reason = parsed.reason;
    deps.logger.warn(
      { runId: options.runId, phase: options.phase, area: options.area, step: options.step, attempt, reason },
      'unusable model reply; nudging',
    );
    sections.push(
      {
        id: `rejected-${attempt}`,
        role: 'assistant',
        text: reply.text.slice(0, ECHOED_REPLY_MAX_CHARS) || '(empty reply)',
        priority: 85,
        shrink: 'truncate',
        minTokens: 32,
      },
      { id: `nudge-${attempt}`, role: 'user', text: options.nudge(parsed.reason), priority: 95, shrink: 'none' },
    );
  }
  return { ok: false, reason, retries: options.retries, promptTokens, promptTokensTotal };
}
