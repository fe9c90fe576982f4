/**
 * `npm run bench -- startup`: how long `assay --help` takes and how much memory it peaks at, next to a
 * bare `node -e 0` measured in the same run (machines here are noisy: read the ratio). Each case runs as
 * a fresh process, warm-up runs first (tsx fills its transform cache), then the cases take turns so
 * drift in the machine's load hits them alike. Wall time is timed around the child; max RSS comes from
 * GNU time. Writes bench-results/startup.json.
 *
 * ASSAY_STARTUP_RUNS sets the timed runs per case (default 15). ASSAY_STARTUP_BASELINE=<checkout>[:<checkout>…]
 * adds each checkout's bin/assay.js as a row: an export of another commit with node_modules linked, built
 * or not, to compare before and after in one run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFreshBuild } from '../../bin/fresh-build.js';
import { renderTable } from '../../src/cli/output.js';
import { round, writeBenchResult, type Bench } from './bench.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const GNU_TIME = '/usr/bin/time';
const RSS_MARK = 'assay-bench-max-rss-kb=';
const WARM_UP_RUNS = 3;
const DEFAULT_RUNS = 15;

interface StartupCase {
  name: string;
  /** Arguments to node. */
  args: string[];
  /** A piece of stdout every valid run prints; a run without it is an error, not a measurement. */
  expect?: string;
}

interface Sample {
  ms: number;
  rssKb: number | undefined;
}

interface CaseResult {
  case: string;
  command: string;
  median_ms: number;
  min_ms: number;
  /** Peak resident set of the process (and of any child it waits for), median over the runs. */
  median_max_rss_mb: number | null;
  /** median_ms / the reference's median_ms. */
  time_ratio: number;
  /** median_max_rss_mb / the reference's. */
  rss_ratio: number | null;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function hasGnuTime(): boolean {
  const probe = spawnSync(GNU_TIME, ['-f', `${RSS_MARK}%M`, process.execPath, '-e', '0'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stderr.includes(RSS_MARK);
}

function runOnce(startup: StartupCase, cwd: string, withRss: boolean): Sample {
  const [command, args] = withRss
    ? [GNU_TIME, ['-f', `${RSS_MARK}%M`, process.execPath, ...startup.args]]
    : [process.execPath, startup.args];
  const started = process.hrtime.bigint();
  const child = spawnSync(command, args, { cwd, encoding: 'utf8', env: process.env });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== 0 || (startup.expect !== undefined && !child.stdout.includes(startup.expect)))
    throw new Error(`${startup.name} failed (exit ${child.status}): ${child.stderr.slice(0, 500)}`);
  const marked = child.stderr.split('\n').find((line) => line.startsWith(RSS_MARK));
  return { ms, rssKb: marked === undefined ? undefined : Number(marked.slice(RSS_MARK.length)) };
}

function cases(): StartupCase[] {
  const built = isFreshBuild(REPO_ROOT);
  const list: StartupCase[] = [
    { name: 'reference: node -e 0', args: ['-e', '0'] },
    {
      name: `bin/assay.js --help (${built ? 'fresh build in dist/' : 'no fresh build: tsx in-process'})`,
      args: [join(REPO_ROOT, 'bin', 'assay.js'), '--help'],
      expect: 'Usage: assay',
    },
  ];
  if (built) {
    // the sources through tsx, as the launcher runs them when dist/ is missing or stale
    list.push({
      name: 'sources through tsx: src/cli/main.ts --help',
      args: ['--import', import.meta.resolve('tsx'), join(REPO_ROOT, 'src', 'cli', 'main.ts'), '--help'],
      expect: 'Usage: assay',
    });
  }
  const baselines = (process.env.ASSAY_STARTUP_BASELINE ?? '').split(delimiter).filter(Boolean);
  for (const baseline of baselines) {
    const launcher = join(resolve(baseline), 'bin', 'assay.js');
    list.push({ name: `baseline: ${launcher} --help`, args: [launcher, '--help'], expect: 'Usage: assay' });
  }
  return list;
}

export const startupBench: Bench = {
  name: 'startup',
  description: '`assay --help` wall time and max RSS (fresh processes) against a bare `node -e 0`',
  async run() {
    const runs = Number(process.env.ASSAY_STARTUP_RUNS ?? DEFAULT_RUNS);
    const withRss = hasGnuTime();
    if (!withRss) process.stdout.write(`max RSS not measured: ${GNU_TIME} (GNU time) is not available\n`);
    const startups = cases();
    // an empty working directory: no assay.config.* is picked up
    const cwd = mkdtempSync(join(tmpdir(), 'assay-bench-startup-'));
    const loadAtStart = loadavg().map((load) => round(load, 2));
    const samples = new Map<StartupCase, Sample[]>(startups.map((startup) => [startup, []]));
    try {
      for (const startup of startups) for (let index = 0; index < WARM_UP_RUNS; index += 1) runOnce(startup, cwd, withRss);
      for (let index = 0; index < runs; index += 1)
        for (const startup of startups) samples.get(startup)?.push(runOnce(startup, cwd, withRss));
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }

    const summaries = startups.map((startup) => {
      const taken = samples.get(startup) ?? [];
      const rss = taken.flatMap((sample) => (sample.rssKb === undefined ? [] : [sample.rssKb / 1024]));
      return {
        startup,
        medianMs: median(taken.map((sample) => sample.ms)),
        minMs: Math.min(...taken.map((sample) => sample.ms)),
        rssMb: rss.length > 0 ? median(rss) : null,
      };
    });
    const reference = summaries[0]!;
    const results: CaseResult[] = summaries.map((summary) => ({
      case: summary.startup.name,
      command: `node ${summary.startup.args.join(' ')}`,
      median_ms: round(summary.medianMs, 1),
      min_ms: round(summary.minMs, 1),
      median_max_rss_mb: summary.rssMb === null ? null : round(summary.rssMb, 1),
      time_ratio: round(summary.medianMs / reference.medianMs, 2),
      rss_ratio: summary.rssMb === null || reference.rssMb === null ? null : round(summary.rssMb / reference.rssMb, 2),
    }));

    process.stdout.write(
      `${renderTable(
        ['case', 'median ms', 'min ms', 'max RSS MB (median)', 'time × reference', 'RSS × reference'],
        results.map((result) => [
          result.case,
          result.median_ms,
          result.min_ms,
          result.median_max_rss_mb,
          result.time_ratio,
          result.rss_ratio,
        ]),
      )}\n`,
    );
    process.stdout.write(
      `${runs} timed runs per case after ${WARM_UP_RUNS} warm-up runs; load average at start ${loadAtStart.join(' ')}\n`,
    );
    const path = writeBenchResult('startup', {
      node: process.version,
      cpus: cpus().length,
      load_average_at_start: loadAtStart,
      runs,
      warm_up_runs: WARM_UP_RUNS,
      cases: results,
    });
    process.stdout.write(`wrote ${path}\n`);
  },
};
