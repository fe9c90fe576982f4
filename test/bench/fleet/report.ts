/** The fleet bench's headline and the tables it prints. */
import { renderTable } from '../../../src/cli/context.js';
import { TARGETS } from './settings.js';
import type { StageMeasurement } from './speedup.js';
import type { summariseOverhead } from './overhead.js';
import type { Kill, RecoverySample } from './recovery.js';

export interface Headline {
  speedup_4_workers: number;
  overhead_ms_per_job_p50: number | null;
  overhead_ms_per_job_p95: number | null;
  recovery_s_p50: number | null;
  recovery_s_p95: number | null;
  runs: number;
  lost_updates: number;
  duplicated_steps: number;
}

export function printTables(
  result: Headline,
  stages: readonly StageMeasurement[],
  concurrent: ReturnType<typeof summariseOverhead>,
  sequential: ReturnType<typeof summariseOverhead>,
  recovery: { kills: readonly Kill[]; samples: readonly RecoverySample[] },
): void {
  const met = (value: number | null, ok: (value: number) => boolean) => (value === null ? 'n/a' : ok(value) ? 'yes' : 'NO');
  const out = (text: string) => process.stdout.write(`${text}\n`);
  out(
    renderTable(
      ['measure', 'value', 'target', 'met'],
      [
        ['speedup_4_workers', result.speedup_4_workers, TARGETS.speedup_4_workers, met(result.speedup_4_workers, (value) => value >= 3)],
        [
          'overhead_ms_per_job_p50',
          result.overhead_ms_per_job_p50,
          TARGETS.overhead_ms_per_job_p50,
          met(result.overhead_ms_per_job_p50, (value) => value <= 10),
        ],
        ['overhead_ms_per_job_p95', result.overhead_ms_per_job_p95, '', ''],
        ['recovery_s_p50', result.recovery_s_p50, '', ''],
        ['recovery_s_p95', result.recovery_s_p95, TARGETS.recovery_s_p95, met(result.recovery_s_p95, (value) => value <= 30)],
        ['runs', result.runs, '', ''],
        ['lost_updates', result.lost_updates, TARGETS.lost_updates, met(result.lost_updates, (value) => value === 0)],
        ['duplicated_steps', result.duplicated_steps, TARGETS.duplicated_steps, met(result.duplicated_steps, (value) => value === 0)],
      ],
    ),
  );
  out(
    renderTable(
      [
        'analyze workers',
        'stage ms',
        'stage (jobs) ms',
        'area / verify jobs',
        'phase work ms',
        'llm p50 / p95 ms',
        'cpu busy %',
        'cpu s outside fleet',
        'lock waiters',
        'idle in tx',
        'cpu s by role',
      ],
      stages.map((stage) => [
        stage.analyze_workers,
        stage.stage_wall_ms,
        stage.stage_wall_ms_jobs,
        `${stage.analyze_jobs} / ${stage.verify_jobs}`,
        stage.phase_work_ms,
        `${stage.llm_latency_ms_p50} / ${stage.llm_latency_ms_p95}`,
        stage.cpu?.busy_pct,
        stage.cpu?.outside_fleet_s,
        stage.store_locks ? `${stage.store_locks.waiting_mean} (max ${stage.store_locks.waiting_max})` : '',
        stage.store_locks?.idle_in_transaction_mean,
        stage.cpu
          ? Object.entries(stage.cpu.seconds_by_role)
              .map(([role, seconds]) => `${role} ${seconds}`)
              .join(', ')
          : '',
      ]),
    ),
  );
  out(
    renderTable(
      [
        'overhead',
        'queue',
        'jobs',
        'overhead p50 / p95 ms',
        'queue→start p50 / p95 ms',
        'completion p50 / p95 ms',
        'cpu busy % (outside fleet s)',
      ],
      [concurrent, sequential].flatMap((batch) =>
        [{ queue: 'all', ...batch }, ...batch.by_queue].map((row) => [
          `${batch.mode} (${batch.runs} runs)`,
          row.queue,
          row.jobs,
          `${row.overhead_ms_p50} / ${row.overhead_ms_p95}`,
          `${row.queue_to_start_ms_p50} / ${row.queue_to_start_ms_p95}`,
          `${row.completion_ms_p50} / ${row.completion_ms_p95}`,
          row.queue === 'all' && batch.cpu ? `${batch.cpu.busy_pct} (${batch.cpu.outside_fleet_s})` : '',
        ]),
      ),
    ),
  );
  out(
    renderTable(
      ['kill at s', 'victim', 'job', 'outcome', 'recovery s', 'taken by'],
      recovery.kills.flatMap((kill, number) =>
        recovery.samples
          .filter((sample) => sample.kill === number)
          .map((sample) => [
            kill.at_s,
            kill.victim,
            `${sample.queue}/${sample.job_id}`,
            sample.outcome,
            sample.recovery_s,
            sample.taken_by,
          ]),
      ),
    ),
  );
}
