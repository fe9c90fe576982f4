/**
 * The noun for one row of a table, in the plural: what insights are written about ("incidents",
 * "flights", "employees") instead of the table's name. A data set's description usually counts its
 * rows ("1,470 employees with …", "500 entries simulating ServiceNow incidents", "Each row is one
 * flight"); a table named like a noun (`orders`) says it too. Without either, "rows".
 */

/** Words that count rows without saying what they are. */
const VAGUE = new Set([
  'rows',
  'row',
  'entries',
  'entry',
  'records',
  'record',
  'lines',
  'items',
  'observations',
  'samples',
  'data',
  'versions',
  'instances',
]);
/** Words that end a noun phrase: what follows describes the noun. */
const PHRASE_END = /^(with|of|from|between|in|on|at|for|by|during|where|which|that|or|to|across|each|per|as|such|table|tables|[a-z]+ing)$/i;
/** Longest noun phrase read after a row count. */
const MAX_PHRASE_WORDS = 6;

function plural(word: string): string {
  if (/(s|x|z|ch|sh)$/i.test(word)) return word;
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function numberAt(text: string): number {
  return Number(text.replace(/,/g, ''));
}

/**
 * The row noun a description gives for a table of `rows` rows: the head noun after the row count
 * ("1,470 employees" → employees; "11,859 six-hourly position and intensity observations of Atlantic
 * tropical storms" → storm observations), or after "each row is one …".
 */
export function rowNounFromDescription(description: string, rows: number): string | undefined {
  const each = /each row is (?:one|a|an) ([a-z][a-z-]*(?: [a-z][a-z-]*)?)/i.exec(description)?.[1];
  if (each) {
    const words = each.toLowerCase().split(' ');
    const cut = words.findIndex((word) => PHRASE_END.test(word) || word === 'and');
    const head = (cut < 0 ? words : words.slice(0, cut)).at(-1);
    if (head && !VAGUE.has(head)) return plural(head);
  }
  for (const match of description.matchAll(/\b(\d{1,3}(?:,\d{3})+|\d+)\s+([^.;:()]{0,120})/g)) {
    const count = numberAt(match[1] as string);
    if (rows > 0 && Math.abs(count - rows) > Math.max(1, rows * 0.01)) continue;
    const words = (match[2] as string).split(/\s+/).filter((word) => word.length > 0);
    const phrase: string[] = [];
    for (const word of words.slice(0, MAX_PHRASE_WORDS)) {
      const clean = word.toLowerCase().replace(/[^a-z-]/g, '');
      if (clean === '' || PHRASE_END.test(clean)) break;
      phrase.push(clean);
    }
    let head = phrase.at(-1);
    if (head === 'and') head = phrase.at(-2);
    if (head === undefined || VAGUE.has(head)) {
      const named = namedAfterVague(description.slice((match.index ?? 0) + (match[1] as string).length));
      if (named) return head === 'observations' || head === 'records' ? `${named.replace(/s$/, '')} ${head}` : named;
      continue;
    }
    if (head.includes('-') && head.split('-').length > 2) continue;
    if (/^\d/.test(head)) continue;
    head = head.replace(/-/g, ' ');
    return /s$/.test(head) ? head : plural(head);
  }
  return undefined;
}

/**
 * What vaguely counted rows are ("500 entries simulating ServiceNow incidents table", "observations of
 * Atlantic tropical storms", "attributes of hardware assets", "attributes related to organizational goals").
 */
function namedAfterVague(rest: string): string | undefined {
  const text = rest.toLowerCase();
  const patterns = [
    /\b(?:observations|records|entries|rows|versions|instances|samples)\s+of\s+(?:[a-z0-9-]+\s+){0,3}?([a-z]+s)\b/,
    /simulating\s+(?:[a-z]+\s+)?`?([a-z]+s)`?\s+table/,
    /(?:attributes|details|information|records)\s+(?:of|related to|about)\s+(?:[a-z-]+\s+){0,2}?([a-z]+s)\b/,
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(text)?.[1];
    if (found && !VAGUE.has(found) && found !== 'attributes' && found !== 'fields') return found;
  }
  return undefined;
}

/** A table name made a plural noun when it reads as one (`incidents`, `orders`); else undefined. */
function nounFromName(name: string): string | undefined {
  const words = name
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length > 0);
  const last = words.at(-1);
  if (!last || /\d/.test(name) || last.length < 3) return undefined;
  return words.join(' ').replace(/([^s])$/, '$1s');
}

/** The row noun of a table: its name when it reads as a noun, else what the description counts; undefined when neither says. */
export function rowNounOf(table: { name: string; rowCount: number }, description: string): string | undefined {
  return nounFromName(table.name) ?? rowNounFromDescription(description, table.rowCount);
}
