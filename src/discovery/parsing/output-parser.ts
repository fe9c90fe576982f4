/**
 * The analysis and recommendation answers: a list of items, each validated with zod (the forgivable
 * coerced: numbers as strings, severity case), with what was dropped reported. Asked as one tool call or
 * structured output (`report_insights`, `report_recommendations`) where the model has them, else found as
 * the JSON object with the expected list in a text reply. An answer without the list asks again.
 */
import { z } from 'zod';
import { severitySchema } from '../../domain/index.js';
import { isPlainObject, parsedObjects, collectJsonCandidates, parseLenientJson } from '../../common/json-extract.js';
import type { AnswerSpec } from '../../llm/structured-output.js';

export type ListParseResult<T> =
  | { ok: true; items: T[]; dropped: Array<{ index: number; reason: string }> }
  | { ok: false; reason: string };

function toNumber(value: unknown): unknown {
  if (typeof value === 'string') {
    const cleaned = value.replace(/[,_\s%]/g, '');
    if (cleaned !== '' && Number.isFinite(Number(cleaned))) return Number(cleaned);
  }
  return value;
}

const looseNumber = z.preprocess(toNumber, z.number().finite());
const unitInterval = z.preprocess((value) => {
  const number = toNumber(value);
  // a model writing 85 for 0.85 means a percentage
  return typeof number === 'number' && number > 1 && number <= 100 ? number / 100 : number;
}, z.number().min(0).max(1));

/**
 * What we accept from the model for one insight (ids, area and dates are ours to assign): the mined
 * findings it rests on (`findings`, ids like `F3`) and/or its own `claim`, and optionally its own words
 * (`name`, `description`) — without them the engine renders the text from the claim.
 */
export const rawInsightSchema = z
  .object({
    findings: z
      .array(
        z
          .string()
          .trim()
          .regex(/^F\d{1,5}$/, 'a finding id such as F3'),
      )
      .max(8)
      .optional(),
    name: z.string().trim().min(1).optional(),
    description: z.string().default(''),
    severity: z.preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() : value), severitySchema).optional(),
    affected_count: looseNumber.nullable().optional(),
    risk_score: unitInterval.nullable().optional(),
    confidence: unitInterval.nullable().optional(),
    metrics: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
    indicators: z.array(z.string()).optional(),
    target_segment: z.string().optional(),
    source_steps: z.array(z.preprocess(toNumber, z.number().int().min(1))).default([]),
    /** Checked against the claim schema when the insight is built: a malformed claim is dropped, not the insight. */
    claim: z.unknown().optional(),
  })
  .refine((insight) => insight.name !== undefined || (insight.findings?.length ?? 0) > 0 || insight.claim !== undefined, {
    message: 'an insight needs findings, a claim or a name',
  });
export type RawInsight = z.infer<typeof rawInsightSchema>;

export const rawRecommendationSchema = z.object({
  title: z.string().trim().min(1),
  description: z.string().default(''),
  priority: z.preprocess(toNumber, z.number().int().min(1).max(5)),
  category: z.string().optional(),
  target_segment: z.string().optional(),
  segment_size: looseNumber.nullable().optional(),
  expected_impact: z
    .object({
      metric: z.string().optional(),
      estimated_improvement: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string()).optional(),
      reasoning: z.string().optional(),
    })
    .optional(),
  actions: z.array(z.string()).optional(),
  related_insight_ids: z.array(z.string()).default([]),
  effort: z
    .preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() : value), z.enum(['low', 'medium', 'high']))
    .nullable()
    .optional(),
  success_metrics: z.array(z.string()).optional(),
  confidence: unitInterval.nullable().optional(),
});
export type RawRecommendation = z.infer<typeof rawRecommendationSchema>;

function findList(reply: string, key: string): unknown[] | undefined {
  const objects = parsedObjects(reply).filter((object) => Array.isArray(object[key]));
  const last = objects[objects.length - 1];
  if (last) return last[key] as unknown[];
  // a bare array of items is accepted too
  const trimmed = reply
    .trim()
    .replace(/^```[a-zA-Z]*\s*/, '')
    .replace(/```\s*$/, '');
  if (trimmed.startsWith('[')) {
    const value = parseLenientJson(trimmed);
    if (Array.isArray(value)) return value;
  }
  return undefined;
}

function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`).join('; ');
}

function parseList<T>(reply: string, key: string, schema: z.ZodType<T>): ListParseResult<T> {
  const list = findList(reply, key);
  if (!list) {
    const hasJson = collectJsonCandidates(reply).length > 0;
    return {
      ok: false,
      reason: hasJson ? `no JSON object with a "${key}" array was found` : 'the reply contains no parseable JSON object',
    };
  }
  return validateItems(list, key, schema);
}

/** Each entry validated on its own: invalid ones are dropped with their reason, unless every entry is invalid. */
function validateItems<T>(list: readonly unknown[], key: string, schema: z.ZodType<T>): ListParseResult<T> {
  const items: T[] = [];
  const dropped: Array<{ index: number; reason: string }> = [];
  list.forEach((entry, index) => {
    if (!isPlainObject(entry)) {
      dropped.push({ index, reason: 'not an object' });
      return;
    }
    const parsed = schema.safeParse(entry);
    if (parsed.success) items.push(parsed.data);
    else dropped.push({ index, reason: formatIssues(parsed.error) });
  });
  if (items.length === 0 && dropped.length > 0) {
    return {
      ok: false,
      reason: `every ${key} entry was invalid (${dropped
        .slice(0, 3)
        .map((d) => `#${d.index}: ${d.reason}`)
        .join(' | ')})`,
    };
  }
  return { ok: true, items, dropped };
}

export function parseInsights(reply: string): ListParseResult<RawInsight> {
  return parseList(reply, 'insights', rawInsightSchema);
}

export function parseRecommendations(reply: string): ListParseResult<RawRecommendation> {
  return parseList(reply, 'recommendations', rawRecommendationSchema);
}

type ListKey = 'insights' | 'recommendations';

/** A list answer: `{"<key>": [items]}` as a tool's arguments, a structured output, or JSON in text. */
function listAnswer<T>(
  key: ListKey,
  tool: { name: string; description: string },
  item: z.ZodType<T>,
  retries: number,
): AnswerSpec<ListParseResult<T> & { ok: true }> {
  return {
    tools: [
      {
        ...tool,
        schema: z.object({ [key]: z.array(item) }),
        accept: (input) => {
          const list = isPlainObject(input) ? input[key] : undefined;
          if (!Array.isArray(list)) return { ok: false, reason: `the answer has no "${key}" array` };
          const result = validateItems(list, key, item);
          return result.ok ? { ok: true, value: result } : result;
        },
      },
    ],
    fromText: (reply) => {
      const result = parseList(reply, key, item);
      return result.ok ? { ok: true, value: result } : result;
    },
    textNudge: (reason) => listReformatNudge(key, reason),
    textRetries: retries,
  };
}

/** An area's insights (today's raw insight shape; its `claim` is checked when the insight is built). */
export function insightsAnswer(retries: number): AnswerSpec<ListParseResult<RawInsight> & { ok: true }> {
  return listAnswer(
    'insights',
    { name: 'report_insights', description: "Report the area's insights, each citing the exploration steps it rests on." },
    rawInsightSchema,
    retries,
  );
}

export function recommendationsAnswer(retries: number): AnswerSpec<ListParseResult<RawRecommendation> & { ok: true }> {
  return listAnswer(
    'recommendations',
    { name: 'report_recommendations', description: 'Report the recommendations, each linked to the insights it acts on.' },
    rawRecommendationSchema,
    retries,
  );
}

/** The nudge after an unusable analysis or recommendations reply. */
export function listReformatNudge(key: ListKey, reason: string): string {
  return `Your last reply could not be used: ${reason}. Reply with exactly one JSON object of the form {"${key}": [ ... ]} following the item shape given above, and nothing else. If there is nothing solid to report, reply {"${key}": []}.`;
}
