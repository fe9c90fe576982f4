/**
 * Words a person would use for a column. A column name is shorthand (`gr_liv_area`, `highway_mpg`,
 * `delay_min`); the data set's description usually spells the same thing out ("above-ground living
 * area", "highway miles per gallon"). A name's words are matched in order against the description —
 * whole words, prefixes of three letters or more, and initials of consecutive words (`mpg` → miles per
 * gallon) — and the matched phrase becomes the label. Without a match, the name's own words, with a
 * trailing unit written as a unit: `delay_min` → "delay (min)".
 */

/** Name words that are units of measure: written in brackets after the label. */
const UNITS: Readonly<Record<string, string>> = {
  usd: 'USD',
  eur: 'EUR',
  gbp: 'GBP',
  g: 'g',
  kg: 'kg',
  lb: 'lb',
  lbs: 'lb',
  km: 'km',
  mi: 'miles',
  miles: 'miles',
  min: 'min',
  mins: 'min',
  minutes: 'min',
  sec: 's',
  secs: 's',
  seconds: 's',
  ms: 'ms',
  hrs: 'hours',
  hours: 'hours',
  days: 'days',
  l: 'l',
  pct: '%',
  percent: '%',
  kt: 'kt',
  mb: 'mb',
  nmi: 'nmi',
  sqft: 'sq ft',
  ft: 'ft',
  cm: 'cm',
  mm: 'mm',
};
/** Words allowed between two matched name words ("time *of* day"): more, and it is another phrase. */
const MAX_GAP_WORDS = 1;
/** Initials matched against at most this many consecutive words. */
const MAX_ACRONYM_WORDS = 4;

interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
  /** Index of the clause the word is in: a phrase never crosses punctuation. */
  clause: number;
  /** The word follows a hyphen (`ground` in "above-ground"). */
  hyphenated: boolean;
}

function descriptionWords(description: string): Word[] {
  const words: Word[] = [];
  let clause = 0;
  let last = 0;
  for (const match of description.matchAll(/[\p{L}\p{N}']+/gu)) {
    if (/[,;:.()/]/.test(description.slice(last, match.index).replace(/-/g, ''))) clause++;
    const text = match[0];
    words.push({
      text,
      lower: text.toLowerCase().replace(/'s$/, ''),
      start: match.index,
      end: match.index + text.length,
      clause,
      hyphenated: description[match.index - 1] === '-',
    });
    last = match.index + text.length;
  }
  return words;
}

/** How many description words from `at` the name word covers (0: no match). */
function covers(token: string, words: readonly Word[], at: number): number {
  const word = words[at];
  if (!word) return 0;
  if (word.lower === token) return 1;
  if (token.length >= 3 && word.lower.startsWith(token)) return 1;
  if (token.length >= 2 && token.length <= MAX_ACRONYM_WORDS && /^[a-z]+$/.test(token)) {
    const initials = words
      .slice(at, at + token.length)
      .map((candidate) => candidate.lower[0])
      .join('');
    if (initials === token && at + token.length <= words.length) return token.length;
  }
  // a two-letter prefix only inside a compound the description hyphenates (`gr` → above-ground)
  if (token.length === 2 && word.lower.startsWith(token) && word.hyphenated) return 1;
  return 0;
}

/** The description phrase that spells out the name's words, in order, within one clause and with small gaps. */
function phraseFor(tokens: readonly string[], words: readonly Word[], description: string): string | undefined {
  let best: { start: number; end: number; span: number } | undefined;
  for (let first = 0; first < words.length; first++) {
    let at = first;
    let ok = true;
    for (const [index, token] of tokens.entries()) {
      let found = -1;
      let length = 0;
      const limit = index === 0 ? first + 1 : at + MAX_GAP_WORDS + 1;
      for (let probe = at; probe < Math.min(words.length, limit); probe++) {
        if (words[probe]?.clause !== words[first]?.clause) break;
        length = covers(token, words, probe);
        if (length > 0) {
          found = probe;
          break;
        }
      }
      if (found < 0) {
        ok = false;
        break;
      }
      at = found + length;
    }
    if (!ok) continue;
    const span = at - first;
    if (!best || span < best.span) best = { start: first, end: at - 1, span };
  }
  if (!best) return undefined;
  const startWord = words[best.start] as Word;
  const endWord = words[best.end] as Word;
  // keep a hyphenated compound whole ("above-ground living area", not "ground living area")
  let from = startWord.start;
  while (from > 0 && /[\p{L}\p{N}-]/u.test(description[from - 1] ?? '')) from--;
  return description.slice(from, endWord.end).replace(/\s+/g, ' ').trim();
}

/**
 * A description phrase is a better label only when it spells out more than the name: more words, or a
 * shortened word written out (`liv` → living, `mpg` → miles per gallon) — not an inflection ("disease"
 * found as "diseases").
 */
function addsInformation(tokens: readonly string[], phrase: string): boolean {
  const words = phrase
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
  if (words.length > tokens.length) return true;
  return tokens.some((token, index) => {
    const word = words[index] ?? '';
    return token.length <= 4 && word.length >= token.length + 3;
  });
}

export function unitOf(name: string): string | undefined {
  const words = labelWords(name);
  const last = words.at(-1);
  return words.length > 1 && last !== undefined ? UNITS[last] : undefined;
}

/**
 * The label of one column: the description's phrase for it, else its name's words; a unit in the
 * name is kept in brackets unless the phrase already says it.
 */
/** A name's words with every script's letters kept: `Région` → région, `closedAt` → closed, at. */
function labelWords(name: string): string[] {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

export function columnLabel(name: string, description = ''): string {
  const words = labelWords(name);
  const unit = unitOf(name);
  const tokens = unit ? words.slice(0, -1) : words;
  const plain = tokens.join(' ');
  if (tokens.length === 0) return name;
  const described = description.trim() === '' ? undefined : phraseFor(tokens, descriptionWords(description), description);
  const base = described !== undefined && described.length <= 60 && addsInformation(tokens, described) ? described : plain;
  return unit && !base.toLowerCase().includes(unit.toLowerCase()) ? `${base} (${unit})` : base;
}
