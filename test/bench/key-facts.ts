/**
 * `npm run bench -- key-facts`: the development tables of kinds other than incidents
 * (`../shared/data/tables/table-2*.json`, or `ASSAY_KEY_FACTS_DIR`), each through `assay eval
 * --insightbench TABLE --json` (the offline analyst, MAX_STEPS steps, a process of its own like a
 * person would run it), then scored by the shared key-fact scorer (`../shared/tools/score-key-facts.py`,
 * or `ASSAY_KEY_FACTS_SCORER`): a fact is stated when one confirmed or adjusted insight's title and
 * description match every group of its regular expressions; the headline fact (the one that answers the
 * table's goal) should be among the first three. Prints per table the facts stated, the headline's rank,
 * insights, confirmed and rejected; writes `bench-results/key-facts.json`. Skipped, with the reason
 * printed, when the tables or python3 are missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../../src/cli/context.js';
import { type Bench, round, writeBenchResult } from './bench.js';

/** The issue's target budget (16 steps), the same as the InsightBench bench; `assay eval` defaults to 24. */
const MAX_STEPS = 16;
const LLM = 'offline:analyst';

const repositoryRoot = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const launcher = join(repositoryRoot, 'bin', 'assay.js');

function tablesDirectory(): string {
  return resolve(process.env.ASSAY_KEY_FACTS_DIR ?? join(repositoryRoot, '..', 'shared', 'data', 'tables'));
}

function scorerPath(): string {
  return resolve(process.env.ASSAY_KEY_FACTS_SCORER ?? join(repositoryRoot, '..', 'shared', 'tools', 'score-key-facts.py'));
}

/** `table-201.json` → `201` (the key of key-facts.json). */
function tableKey(file: string): string | null {
  return /^table-(2\d+)\.json$/.exec(file)?.[1] ?? null;
}

interface KeyFactsFile {
  TTR?: string;
  flags: Record<string, { headline: string; facts: Record<string, string[][]> }>;
}

/** What the bench reads of `assay eval --insightbench --json`. */
interface EvalJson {
  run_type: string;
  duration_s: number;
  counts: { total: number; confirmed: number; adjusted: number; rejected: number; unverified: number; found: number };
  insights: Array<{ name: string; description: string; validation: { status: string } | null }>;
  scores: { rouge1_recall_mean: number; template_baseline: { rouge1_recall_mean: number } };
}

interface TableRow {
  table: string;
  facts_stated: number | null;
  facts_total: number;
  headline: string;
  /** 1-based position of the first confirmed or adjusted insight stating the headline fact, among those insights; null: not stated. */
  headline_rank: number | null;
  headline_in_top3: boolean | null;
  missed: string[];
  insights: number;
  confirmed: number;
  adjusted: number;
  rejected: number;
  unverified: number;
  rouge1_recall_mean: number | null;
  template_baseline: number | null;
  run_type: string;
  duration_s: number;
  error?: string;
}

/**
 * The scorer's rule (score-key-facts.py), used here only for the headline's rank, which the scorer
 * reports as yes/no: the text is `name :: description` lower-cased, each group needs one matching
 * pattern, and only confirmed or adjusted insights are read, in ranked order.
 */
function headlineRank(run: EvalJson, groups: readonly string[][], ttr: string): number | null {
  const texts = run.insights
    .filter((insight) => insight.validation?.status === 'confirmed' || insight.validation?.status === 'adjusted')
    .map((insight) => `${insight.name} :: ${insight.description}`.toLowerCase());
  const stated = (text: string) => groups.every((group) => group.some((pattern) => new RegExp(pattern.replaceAll('$TTR', ttr)).test(text)));
  const index = texts.findIndex(stated);
  return index === -1 ? null : index + 1;
}

interface ScorerLine {
  stated: number;
  total: number;
  top3: boolean;
  missed: string[];
}

/** `201: 2/4 facts, headline in top 3: yes, 9 confirmed insights; missed a, b` per table. */
function parseScorer(output: string): Map<string, ScorerLine> {
  const lines = new Map<string, ScorerLine>();
  for (const match of output.matchAll(
    /^(\d+): (\d+)\/(\d+) facts, headline in top 3: (yes|no), \d+ confirmed insights(?:; missed (.+))?$/gm,
  )) {
    const [, key, stated, total, top3, missed] = match;
    lines.set(key ?? '', {
      stated: Number(stated),
      total: Number(total),
      top3: top3 === 'yes',
      missed: missed ? missed.split(', ') : [],
    });
  }
  return lines;
}

interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `assay eval` in a process of its own, from an empty working directory, with no settings but the command line. */
function assay(args: readonly string[], cwd: string): Promise<CliOutcome> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [launcher, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, NO_COLOR: '1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

function missingPrerequisite(directory: string, scorer: string): string | null {
  if (!existsSync(directory)) return `no development tables at ${directory} (set ASSAY_KEY_FACTS_DIR)`;
  if (!existsSync(join(directory, 'key-facts.json'))) return `no key-facts.json in ${directory}`;
  if (!existsSync(scorer)) return `no key-fact scorer at ${scorer} (set ASSAY_KEY_FACTS_SCORER)`;
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error || python.status !== 0) return 'python3 is not installed (the key-fact scorer is a Python script)';
  return null;
}

export const keyFactsBench: Bench = {
  name: 'key-facts',
  description: `development tables 201-208 with the offline analyst (${MAX_STEPS} steps): key facts stated by confirmed insights, the headline's rank, insights, confirmed, rejected`,
  async run() {
    const directory = tablesDirectory();
    const scorer = scorerPath();
    const missing = missingPrerequisite(directory, scorer);
    if (missing) {
      process.stdout.write(`skipped: ${missing}\n`);
      return;
    }
    const keyFactsPath = join(directory, 'key-facts.json');
    const keyFacts = JSON.parse(readFileSync(keyFactsPath, 'utf8')) as KeyFactsFile;
    const tables = readdirSync(directory)
      .filter((file) => tableKey(file) !== null)
      .sort();
    const workDir = await mkdtemp(join(tmpdir(), 'assay-bench-key-facts-'));
    const runs = new Map<string, { run?: EvalJson; error?: string; seconds: number }>();
    const rows: TableRow[] = [];
    try {
      for (const file of tables) {
        const key = tableKey(file) as string;
        const started = process.hrtime.bigint();
        const outcome = await assay(
          [
            'eval',
            '--insightbench',
            join(directory, file),
            '--llm',
            LLM,
            '--max-steps',
            String(MAX_STEPS),
            '--json',
            '--out',
            join(workDir, 'runs'),
          ],
          workDir,
        );
        const seconds = round(Number(process.hrtime.bigint() - started) / 1e9, 2);
        const runPath = join(workDir, `${key}.json`);
        writeFileSync(runPath, outcome.stdout);
        if (outcome.code !== 0) {
          const error = `assay eval exited ${outcome.code}: ${outcome.stderr.trim().split('\n').slice(-3).join(' | ')}`;
          runs.set(key, { error, seconds });
        } else {
          runs.set(key, { run: JSON.parse(outcome.stdout) as EvalJson, seconds });
        }
        const result = runs.get(key);
        process.stdout.write(
          `  ${key}: ${result?.error ?? `${result?.run?.counts.total} insights, ${result?.run?.counts.confirmed} confirmed`} (${seconds} s)\n`,
        );
      }
      const scored = spawnSync(
        'python3',
        [scorer, keyFactsPath, ...[...runs.keys()].map((key) => `${key}=${join(workDir, `${key}.json`)}`)],
        {
          encoding: 'utf8',
        },
      );
      if (scored.status !== 0) throw new Error(`the key-fact scorer failed (exit ${scored.status}): ${scored.stderr}`);
      process.stdout.write(scored.stdout);
      const scorerLines = parseScorer(scored.stdout);
      for (const [key, outcome] of runs) {
        const spec = keyFacts.flags[key];
        const line = scorerLines.get(key);
        const run = outcome.run;
        const rank = run && spec ? headlineRank(run, spec.facts[spec.headline] ?? [], keyFacts.TTR ?? '') : null;
        if (line && (rank !== null && rank <= 3) !== line.top3)
          process.stdout.write(
            `warning: table ${key}: headline rank ${rank} disagrees with the scorer's "in top 3: ${line.top3 ? 'yes' : 'no'}"\n`,
          );
        rows.push({
          table: key,
          facts_stated: line?.stated ?? null,
          facts_total: line?.total ?? Object.keys(spec?.facts ?? {}).length,
          headline: spec?.headline ?? '',
          headline_rank: rank,
          headline_in_top3: line?.top3 ?? null,
          missed: line?.missed ?? [],
          insights: run?.counts.total ?? 0,
          confirmed: run?.counts.confirmed ?? 0,
          adjusted: run?.counts.adjusted ?? 0,
          rejected: run?.counts.rejected ?? 0,
          unverified: run?.counts.unverified ?? 0,
          rouge1_recall_mean: run?.scores.rouge1_recall_mean ?? null,
          template_baseline: run?.scores.template_baseline.rouge1_recall_mean ?? null,
          run_type: run?.run_type ?? 'error',
          duration_s: outcome.seconds,
          ...(outcome.error ? { error: outcome.error } : {}),
        });
      }
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    process.stdout.write(
      `${renderTable(
        [
          'table',
          'facts stated',
          'headline rank',
          'insights',
          'confirmed',
          'adjusted',
          'rejected',
          'unverified',
          'rouge-1',
          'template baseline',
          'seconds',
        ],
        rows.map((row) => [
          row.table,
          `${row.facts_stated ?? 'error'}/${row.facts_total}`,
          row.headline_rank ?? 'not stated',
          row.insights,
          row.confirmed,
          row.adjusted,
          row.rejected,
          row.unverified,
          row.rouge1_recall_mean ?? '',
          row.template_baseline ?? '',
          row.duration_s,
        ]),
      )}\n`,
    );
    for (const row of rows) {
      if (row.error) process.stdout.write(`${row.table} failed: ${row.error}\n`);
      else if (row.missed.length > 0) process.stdout.write(`${row.table} missed: ${row.missed.join(', ')}\n`);
    }
    const stated = rows.reduce((sum, row) => sum + (row.facts_stated ?? 0), 0);
    const total = rows.reduce((sum, row) => sum + row.facts_total, 0);
    const top3 = rows.filter((row) => row.headline_in_top3 === true).length;
    process.stdout.write(
      `total: ${stated}/${total} key facts stated (${total === 0 ? 0 : round((100 * stated) / total, 1)} %), headline in the first three on ${top3}/${rows.length}\n`,
    );
    process.stdout.write(
      `wrote ${writeBenchResult('key-facts', {
        llm: LLM,
        max_steps: MAX_STEPS,
        tables_dir: directory,
        scorer,
        facts_stated: stated,
        facts_total: total,
        headline_in_top3: top3,
        tables: rows,
      })}\n`,
    );
  },
};
