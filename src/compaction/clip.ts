/** Cutting long text with a visible marker, so a reader (human or model) knows something was left out. */

/**
 * Keep the first `keep` characters of `text` when it is longer than `max`, and say how much was cut.
 * The marker names the cut length so two different long values never look identical by accident.
 */
export function clipText(text: string, max: number, keep: number = max): string {
  if (text.length <= max) return text;
  return `${text.slice(0, keep)}…(+${text.length - keep} chars)`;
}
