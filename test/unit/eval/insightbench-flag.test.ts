import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors/index.js';
import { flagProfile, loadInsightBenchFlag, parseInsightBenchFlag, tableNameForFile } from '../../../src/eval/insightbench/flag.js';

/** A trimmed copy of InsightBench flag 14 (MIT, see test/fixtures/insightbench/LICENSE). */
const fixtureDirectory = resolve(fileURLToPath(new URL('../../fixtures/insightbench/', import.meta.url)));
const fixturePath = join(fixtureDirectory, 'flag-14.json');
const fixture = () => JSON.parse(readFileSync(fixturePath, 'utf8')) as Record<string, unknown>;

function validationError(work: () => unknown): ValidationError {
  try {
    work();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('tableNameForFile', () => {
  it('turns a CSV file name into a plain lower-case identifier', () => {
    expect(tableNameForFile('/data/flag-11.csv')).toBe('flag_11');
    expect(tableNameForFile('flag-11-sysuser.csv')).toBe('flag_11_sysuser');
    expect(tableNameForFile('2024 Sales (EU).CSV')).toBe('t_2024_sales_eu');
  });

  it('refuses a name with no letters or digits', () => {
    expect(() => tableNameForFile('---.csv')).toThrow(/cannot derive a table name/);
  });
});

describe('when an InsightBench flag is loaded', () => {
  it('reads the goal, persona, description, ground truth with questions, and both tables beside it', () => {
    const flag = loadInsightBenchFlag(fixturePath);
    expect(flag.name).toBe('flag-14');
    expect(flag.goal).toMatch(/^Given the user and incidents tabular data/);
    expect(flag.role).toBe('Team Lead');
    expect(flag.category).toBe('User Management');
    expect(flag.datasetDescription).toMatch(/sys_user/);
    expect(flag.tables).toEqual([
      { table: 'flag_14', file: join(fixtureDirectory, 'flag-14.csv') },
      { table: 'flag_14_sysuser', file: join(fixtureDirectory, 'flag-14-sysuser.csv') },
    ]);
    expect(flag.groundTruth).toHaveLength(6);
    expect(flag.groundTruth[0]).toEqual({
      index: 0,
      insight: 'Fred Luddy has a significantly higher average TTR compared to other agents',
      question: 'What is the average TTR of each agent as a histogram?',
    });
    // the last entry of insight_list asks no question
    expect(flag.groundTruth[5]).toEqual({
      index: 5,
      insight: 'Continued linear increase in TTR if workload during leave periods is not balanced',
    });
  });

  it('takes the ground truth from insight_list when the flag has no insights list', () => {
    const { insights: _insights, ...document } = fixture();
    const flag = parseInsightBenchFlag(document, fixturePath);
    expect(flag.groundTruth.map((truth) => truth.insight)).toEqual(fixture().insights);
  });

  it('has one table when the flag names no user table', () => {
    const flag = parseInsightBenchFlag({ ...fixture(), user_dataset_csv_path: null }, fixturePath);
    expect(flag.tables.map((table) => table.table)).toEqual(['flag_14']);
  });

  it('names the file and the field when the goal is missing', () => {
    const document = fixture();
    const metadata = { ...(document.metadata as Record<string, unknown>) };
    delete metadata.goal;
    const error = validationError(() => parseInsightBenchFlag({ ...document, metadata }, fixturePath));
    expect(error.message).toMatch(/^flag-14\.json is not an InsightBench flag: metadata\.goal: /);
    expect(error.issues.map((issue) => issue.path)).toEqual(['metadata.goal']);
  });

  it('names the field and the file when a CSV it names is not beside it', () => {
    const error = validationError(() =>
      parseInsightBenchFlag({ ...fixture(), user_dataset_csv_path: 'csvs/flag-99-sysuser.csv' }, fixturePath),
    );
    expect(error.message).toContain('user_dataset_csv_path names flag-99-sysuser.csv, which is not beside the flag');
  });

  it('refuses a flag without ground truth', () => {
    const error = validationError(() => parseInsightBenchFlag({ ...fixture(), insights: [], insight_list: [] }, fixturePath));
    expect(error.message).toMatch(/has no ground-truth insights/);
  });

  it('refuses a file that is not JSON, naming it', () => {
    const error = validationError(() => loadInsightBenchFlag(join(fixtureDirectory, 'flag-14.csv')));
    expect(error.message).toMatch(/flag-14\.csv is not valid JSON/);
  });
});

describe('flagProfile', () => {
  it("puts the flag's description, goal, persona and category over the generator's suggestions", () => {
    const flag = loadInsightBenchFlag(fixturePath);
    const profile = flagProfile(flag, { basic_info: { dataset_name: 'flag_14', goal: 'generated goal' }, measures: { key_measures: [] } });
    expect(profile).toEqual({
      basic_info: {
        dataset_name: 'flag_14',
        description: flag.datasetDescription,
        goal: flag.goal,
        audience: 'Team Lead',
        category: 'User Management',
      },
      measures: { key_measures: [] },
    });
  });
});
