/**
 * Escaping for the report. Every interpolation in an `html` template is escaped unless it is
 * already `SafeHtml`, so LLM-written text (insight names, SQL, cell values) can never inject markup.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for use in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

/** Markup that has already been escaped or built from escaped parts. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** What a template may interpolate; `false`, `null` and `undefined` render nothing so `cond && html\`…\`` works. */
export type HtmlValue = SafeHtml | string | number | false | null | undefined | readonly HtmlValue[];

function renderValue(value: HtmlValue): string {
  if (value === false || value === null || value === undefined) return '';
  if (value instanceof SafeHtml) return value.markup;
  if (typeof value === 'number') return escapeHtml(String(value));
  if (typeof value === 'string') return escapeHtml(value);
  return value.map(renderValue).join('');
}

/** Tagged template producing escaped markup. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += renderValue(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(markup);
}

/** Trusted literal markup (CSS, the document shell); never pass data through this. */
export function rawHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
