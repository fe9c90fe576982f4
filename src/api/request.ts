/** Reading and validating request input: JSON bodies and query strings through zod, failures as ValidationError with field paths. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import { assertJsonDepth } from './limits.js';

/** One issue per offending field, its path dotted (`warehouse.url`, `areas.2`); an unknown key is reported at its own path. */
export function issuesOf(error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const parent = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...parent, key].join('.'), message: 'unknown field' }));
    }
    return [{ path: parent.join('.'), message: issue.message }];
  });
}

export function parseWith<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const summary = issues.map((issue) => `${issue.path || '(body)'}: ${issue.message}`).join('; ');
  throw new ValidationError(`invalid ${what}: ${summary}`, issues);
}

/** The request's JSON body, depth-checked and not yet validated; an empty body counts as `{}`. */
export async function readJsonValue(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`the request body is not valid JSON (${(error as Error).message})`, [{ path: '', message: 'not JSON' }]);
  }
  assertJsonDepth(raw);
  return raw;
}

/** The request's JSON body parsed with `schema`; an empty body counts as `{}`. */
export async function readJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return parseWith(schema, await readJsonValue(c), 'request body');
}

export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return parseWith(schema, c.req.query(), 'query string');
}
