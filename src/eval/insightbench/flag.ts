/**
 * One InsightBench flag: `flag-N.json` (goal, persona, dataset description, ground-truth insights)
 * and the CSV tables it names, which sit beside it. Parsing is strict about what the harness uses and
 * loose about everything else, so a flag with extra fields still loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../../errors/index.js';

const insightEntrySchema = z.looseObject({
  insight: z.string().min(1),
  question: z.string().optional(),
  data_type: z.string().optional(),
});

const metadataSchema = z.looseObject({
  goal: z.string().min(1),
  role: z.string().default(''),
  category: z.string().default(''),
  dataset_description: z.string().default(''),
});

export const insightBenchFlagSchema = z.looseObject({
  dataset_csv_path: z.string().min(1),
  user_dataset_csv_path: z.string().min(1).nullish(),
  metadata: metadataSchema,
  /** The ground-truth findings as plain sentences. */
  insights: z.array(z.string().min(1)).optional(),
  /** The same findings with the question each answers (and plot data the harness does not use). */
  insight_list: z.array(insightEntrySchema).optional(),
  summary: z.string().optional(),
});
export type InsightBenchFlagDocument = z.infer<typeof insightBenchFlagSchema>;

export interface GroundTruthInsight {
  /** 0-based position in the flag's list. */
  index: number;
  insight: string;
  /** The analysis question this finding answers, when the flag's `insight_list` gives one. */
  question?: string;
}

/** A CSV the flag names, and the warehouse table it becomes. */
export interface FlagTable {
  table: string;
  file: string;
}

export interface InsightBenchFlag {
  /** The flag's file name without `.json` (`flag-11`). */
  name: string;
  path: string;
  goal: string;
  role: string;
  category: string;
  datasetDescription: string;
  groundTruth: GroundTruthInsight[];
  tables: FlagTable[];
}

/**
 * A CSV file name as a table name: lower-case, every run of other characters as `_`, and a leading
 * `t_` when it would start with a digit (`flag-11-sysuser.csv` → `flag_11_sysuser`).
 */
export function tableNameForFile(file: string): string {
  const stem = basename(file, extname(file))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (stem.length === 0) throw new ValidationError(`cannot derive a table name from the file name "${basename(file)}"`);
  return /^[0-9]/.test(stem) ? `t_${stem}` : stem;
}

function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', message: issue.message }));
}

/** The ground truth: `insights`, else the `insight` of every `insight_list` entry; questions where the lists agree. */
export function groundTruthOf(document: InsightBenchFlagDocument): GroundTruthInsight[] {
  const entries = document.insight_list ?? [];
  const sentences = document.insights && document.insights.length > 0 ? document.insights : entries.map((entry) => entry.insight);
  return sentences.map((insight, index) => {
    const entry = entries[index];
    const question = entry && entry.insight.trim() === insight.trim() ? entry.question : undefined;
    return question ? { index, insight, question } : { index, insight };
  });
}

/** The tables of a flag: the basenames of the CSV paths it names, looked up beside the flag file. */
function flagTables(document: InsightBenchFlagDocument, flagPath: string): FlagTable[] {
  const directory = dirname(flagPath);
  const named: Array<[string, string]> = [['dataset_csv_path', document.dataset_csv_path]];
  if (document.user_dataset_csv_path) named.push(['user_dataset_csv_path', document.user_dataset_csv_path]);
  const tables = named.map(([field, value]) => {
    const file = join(directory, basename(value));
    if (!existsSync(file))
      throw new ValidationError(`${basename(flagPath)}: ${field} names ${basename(value)}, which is not beside the flag in ${directory}`, [
        { path: field, message: 'file not found' },
      ]);
    return { table: tableNameForFile(file), file };
  });
  const names = tables.map((table) => table.table);
  const clash = names.find((name, index) => names.indexOf(name) !== index);
  if (clash)
    throw new ValidationError(`${basename(flagPath)}: two of its CSV files map to the same table name "${clash}"`, [
      { path: 'user_dataset_csv_path', message: 'same table name as dataset_csv_path' },
    ]);
  return tables;
}

/** Parses a flag document already read; `flagPath` locates its CSVs and names it in errors. */
export function parseInsightBenchFlag(raw: unknown, flagPath: string): InsightBenchFlag {
  const file = basename(flagPath);
  const parsed = insightBenchFlagSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    throw new ValidationError(
      `${file} is not an InsightBench flag: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
      issues,
    );
  }
  const groundTruth = groundTruthOf(parsed.data);
  if (groundTruth.length === 0)
    throw new ValidationError(`${file} has no ground-truth insights: both "insights" and "insight_list" are missing or empty`, [
      { path: 'insights', message: 'empty' },
    ]);
  const { metadata } = parsed.data;
  return {
    name: basename(flagPath, extname(flagPath)),
    path: resolve(flagPath),
    goal: metadata.goal.trim(),
    role: metadata.role.trim(),
    category: metadata.category.trim(),
    datasetDescription: metadata.dataset_description.trim(),
    groundTruth,
    tables: flagTables(parsed.data, resolve(flagPath)),
  };
}

export function loadInsightBenchFlag(flagPath: string): InsightBenchFlag {
  const path = resolve(flagPath);
  if (!existsSync(path)) throw new ValidationError(`InsightBench flag ${path} does not exist`, [{ path: 'flag', message: 'not found' }]);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ValidationError(
      `InsightBench flag ${path} is not valid JSON: ${(error as Error).message}`,
      [{ path: 'flag', message: 'not JSON' }],
      {
        cause: error,
      },
    );
  }
  return parseInsightBenchFlag(raw, path);
}

/** What the analyst is told about the data: the flag's description, goal and persona, over the generator's suggestions. */
export function flagProfile(flag: InsightBenchFlag, suggested: Record<string, unknown>): Record<string, unknown> {
  const basic = typeof suggested.basic_info === 'object' && suggested.basic_info !== null ? suggested.basic_info : {};
  return {
    ...suggested,
    basic_info: {
      ...basic,
      ...(flag.datasetDescription ? { description: flag.datasetDescription } : {}),
      goal: flag.goal,
      ...(flag.role ? { audience: flag.role } : {}),
      ...(flag.category ? { category: flag.category } : {}),
    },
  };
}
