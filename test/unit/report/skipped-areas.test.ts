import { afterEach, describe, expect, it, vi } from 'vitest';
import { printRunSummary } from '../../../src/cli/run-summary.js';
import { renderRunReport } from '../../../src/report/index.js';
import { ecommerceReportFixture } from '../../fixtures/report/ecommerce-run.js';

/** The fixture run with one area skipped (as the engine records it), on the offline analyst, nothing failed. */
function skippedOfflineRun() {
  const fixture = ecommerceReportFixture();
  const skipped = { status: 'skipped' as const, error: 'no exploration step was relevant to this area (9 steps considered)' };
  const areaId = fixture.result.analysis_log[0]!.area_id;
  for (const log of [fixture.result.analysis_log, fixture.run.areas])
    log.forEach((area) => Object.assign(area, area.area_id === areaId ? skipped : { status: 'completed', error: undefined }));
  fixture.run.settings.llm = 'offline:analyst';
  fixture.run.settings.max_steps = 10;
  fixture.run.exploration_done_reason = 'max_steps';
  fixture.run.error = undefined;
  // a result written before skipped areas stopped being errors still lists one
  fixture.result.summary.errors = [`area ${areaId} skipped: ${skipped.error}`];
  fixture.result.recommendation_log = { dropped_insight_ids: [], parse_retries: 0 };
  for (const call of fixture.result.telemetry.llm_calls) call.cost_usd = 0;
  for (const byModel of Object.values(fixture.result.telemetry.usage_by_phase))
    for (const usage of Object.values(byModel)) usage.cost_usd = 0;
  return { fixture, areaId };
}

describe('when a run skipped an area', () => {
  it('explains it in the report without an error banner: why, and what would let it run', () => {
    const { fixture, areaId } = skippedOfflineRun();
    const page = renderRunReport(fixture);
    expect(page).not.toContain('This run had');
    expect(page).not.toContain('class="banner banner-error"');
    expect(page).toMatch(/class="banner banner-note"><strong>1 area was skipped<\/strong>/);
    expect(page).toContain(
      'no exploration step was relevant to this area (9 steps considered). What would let it run: a longer exploration (--max-steps 20',
    );
    expect(page).toContain(`(--areas ${areaId})`);
  });

  it('lists it under "skipped (not errors)" in the CLI summary, which says the status once and the offline cost as none', () => {
    const { fixture, areaId } = skippedOfflineRun();
    let printed = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((printed += String(chunk)), true));
    printRunSummary({ run: fixture.run, result: fixture.result, outputDir: '/out', reportPath: '/out/report.html' });
    expect(printed).toMatch(/run \S+: completed, partial \(\d+ of \d+ areas analysed\) in/);
    expect(printed).not.toMatch(/completed \(partial\)|partial \(partial\)/);
    expect(printed).toMatch(new RegExp(`skipped \\(not errors\\):\\n  - ${areaId}: no exploration step was relevant`));
    expect(printed).not.toContain('errors:\n');
    expect(printed).toContain('cost: none (offline model)');
    expect(printed).not.toContain('$0.0000');
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });
});
