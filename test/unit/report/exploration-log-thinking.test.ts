/**
 * The exploration log shows why each step was taken (the model's `thinking`) as readable text only:
 * the offline analyst's scratchpad, which it keeps in its thinking as a deflated, hex-encoded
 * `[notes:…]` tag, never reaches the page.
 */
import { describe, expect, it } from 'vitest';
import { encodeMemo, type AnalystMemo } from '../../../src/llm/offline-analyst/memo.js';
import { renderRunReport } from '../../../src/report/index.js';
import { readableThinking } from '../../../src/report/readable-thinking.js';
import { ecommerceReportFixture } from '../../fixtures/report/ecommerce-run.js';

/** Notes as the analyst writes them after profiling one table. */
const NOTES = encodeMemo({
  tables: [
    {
      qualified: 'main.orders',
      name: 'orders',
      rows: 52_000,
      columns: [
        { name: 'order_id', type: 'BIGINT', role: 'key', nullable: false },
        {
          name: 'status',
          type: 'VARCHAR',
          role: 'text',
          nullable: false,
          distinct: 4,
          values: ['paid', 'refunded', 'pending', 'cancelled'],
        },
        { name: 'created_at', type: 'TIMESTAMP', role: 'time', nullable: false },
      ],
    },
  ],
  done: ['lookup:1', 'profile', 'conversion#device-split'],
  profiled: true,
  searched: false,
} satisfies AnalystMemo);
const REASON = 'Counting distinct values per text column to know which columns are dimensions worth grouping by.';

function explorationLog(page: string): string {
  const start = page.indexOf('id="exploration-log"');
  return page.slice(start, page.indexOf('</section>', start));
}

describe('readableThinking', () => {
  it('keeps the reasoning and drops the analyst notes that follow it', () => {
    expect(NOTES).toMatch(/^\[notes:[0-9a-f]{40,}\]$/);
    expect(readableThinking(`${REASON} ${NOTES}`)).toBe(REASON);
  });

  it('is empty when the thinking holds nothing but notes or opaque hex', () => {
    expect(readableThinking(NOTES)).toBe('');
    expect(readableThinking(` ${NOTES}  ${'ab12'.repeat(12)} `)).toBe('');
    expect(readableThinking('')).toBe('');
  });

  it('leaves ordinary reasoning alone, short hex-looking words and brackets included', () => {
    const prose = 'Orders [see step 3] peak in Q4; the cafe and deadbeef tables are copies: skip them.';
    expect(readableThinking(prose)).toBe(prose);
  });
});

describe('when a run of the offline analyst is rendered', () => {
  const fixture = ecommerceReportFixture();
  const [first, second, ...rest] = fixture.steps;
  const steps = [{ ...first!, thinking: `${REASON} ${NOTES}` }, { ...second!, thinking: NOTES }, ...rest];
  const log = explorationLog(renderRunReport({ ...fixture, steps }));

  it('shows each step reasoning without the notes, and nothing for a step whose thinking is only notes', () => {
    expect(log).toContain(`<p class="small muted log-thinking">${REASON}</p>`);
    expect(log).not.toContain('[notes:');
    expect(log).not.toMatch(/[0-9a-f]{32,}/);
    const secondStep = log.slice(log.indexOf(`id="step-${second!.step}"`), log.indexOf(`id="step-${rest[0]!.step}"`));
    expect(secondStep).not.toContain('log-thinking');
  });
});
