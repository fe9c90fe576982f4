/**
 * Finding JSON objects in model output: fenced blocks first, then balanced top-level braces found
 * by a scanner that understands string literals (so braces inside SQL strings do not count).
 */

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n?([\s\S]*?)```/g;

/** Every balanced top-level `{…}` span in `text`, in order. Quotes only matter inside braces. */
export function scanBalancedObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (depth > 0 && inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) {
      inString = true;
    } else if (char === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (char === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, index + 1));
    }
  }
  return spans;
}

/** JSON candidates in priority order: fenced bodies that start with `{`, then balanced spans of the raw text. */
export function collectJsonCandidates(text: string): string[] {
  const candidates: string[] = [];
  for (const match of text.matchAll(FENCE)) {
    const body = (match[2] ?? '').trim();
    if (body.startsWith('{')) candidates.push(...scanBalancedObjects(body));
  }
  for (const span of scanBalancedObjects(text)) if (!candidates.includes(span)) candidates.push(span);
  return candidates;
}

/** Escapes raw control characters inside string literals (models often put multi-line SQL in a JSON string). */
function escapeControlCharsInStrings(json: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const char of json) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      else if (char === '\n') {
        out += '\\n';
        continue;
      } else if (char === '\r') {
        out += '\\r';
        continue;
      } else if (char === '\t') {
        out += '\\t';
        continue;
      }
    } else if (char === '"') inString = true;
    out += char;
  }
  return out;
}

/** Removes commas that directly precede a closing brace or bracket, outside strings. */
function removeTrailingCommas(json: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (let index = 0; index < json.length; index++) {
    const char = json[index]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      out += char;
      continue;
    }
    if (char === '"') inString = true;
    if (char === ',') {
      const rest = json.slice(index + 1).trimStart();
      if (rest.startsWith('}') || rest.startsWith(']')) continue;
    }
    out += char;
  }
  return out;
}

/**
 * JSON.parse with the repairs that real model output needs and that cannot change meaning:
 * typographic quotes as delimiters, raw newlines inside strings, trailing commas.
 */
export function parseLenientJson(candidate: string): unknown {
  try {
    return JSON.parse(candidate);
  } catch {
    const straightened = candidate.replace(/[\u201C\u201D]/g, '"');
    const repaired = removeTrailingCommas(escapeControlCharsInStrings(straightened));
    try {
      return JSON.parse(repaired);
    } catch {
      return undefined;
    }
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parsed objects among the candidates of `text`, in candidate order. */
export function parsedObjects(text: string): Array<Record<string, unknown>> {
  const objects: Array<Record<string, unknown>> = [];
  for (const candidate of collectJsonCandidates(text)) {
    const value = parseLenientJson(candidate);
    if (isPlainObject(value)) objects.push(value);
  }
  return objects;
}
