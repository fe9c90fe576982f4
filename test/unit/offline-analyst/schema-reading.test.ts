/**
 * Reading a schema by meaning: the time axis by role (a record's start before its end and before audit
 * columns, whatever the column order), identifier-named columns as keys only when they behave like
 * keys, names with spaces, accents and multi-word types read whole, and the measurable shapes of the
 * analyst's own SQL read back into claims.
 */
import { describe, expect, it } from 'vitest';
import { parseAction, VERIFIER_ACTIONS } from '../../../src/discovery/parsing/action-parser.js';
import { gapClaim, measureSource, segmentSource, sourceTable } from '../../../src/llm/offline-analyst/analysis/claims.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { readCatalog } from '../../../src/llm/offline-analyst/readers/catalog.js';
import { renderCatalog } from '../../../src/schema/catalog.js';
import { renderTableDetail } from '../../../src/schema/lookup.js';
import type { TableSchema } from '../../../src/warehouse/port.js';
import { readLookupReply } from '../../../src/llm/offline-analyst/readers/lookup-reply.js';
import {
  isEntity,
  isFreeText,
  mainTime,
  milestoneTimes,
  refineRoles,
  toTableModel,
} from '../../../src/llm/offline-analyst/schema-model.js';
import { sqlDialect } from '../../../src/llm/offline-analyst/sql/dialect.js';
import type { TableModel } from '../../../src/llm/offline-analyst/types.js';
import { pluralNoun, rowsNoun, wordsOf } from '../../../src/llm/offline-analyst/text.js';
import { verificationRequest } from './prompts.js';

function table(columns: Array<[string, string]>, rows = 500): TableModel {
  return toTableModel({
    qualified: 'main.records',
    rows,
    columns: columns.map(([name, type]) => ({ name, type, nullable: true, category: 'dimension' })),
  });
}

describe('when choosing the time axis of a table whose columns are all nullable', () => {
  it('takes the start of a record, not the first time column, nor an end, nor an audit column', () => {
    const records = table([
      ['closed_at', 'TIMESTAMP'],
      ['sys_updated_on', 'TIMESTAMP'],
      ['opened_at', 'TIMESTAMP'],
      ['category', 'VARCHAR'],
    ]);
    expect(mainTime(records)?.name).toBe('opened_at');
    expect(milestoneTimes(records).map((column) => column.name)).toEqual(['closed_at']);
  });

  it('reads purchase before expiry and start before end', () => {
    expect(
      mainTime(
        table([
          ['warranty_expiration', 'TIMESTAMP'],
          ['purchased_on', 'TIMESTAMP'],
        ]),
      )?.name,
    ).toBe('purchased_on');
    expect(
      mainTime(
        table([
          ['end_date', 'DATE'],
          ['start_date', 'DATE'],
        ]),
      )?.name,
    ).toBe('start_date');
    expect(
      mainTime(
        table([
          ['processed_date', 'TIMESTAMP'],
          ['opened_at', 'TIMESTAMP'],
        ]),
      )?.name,
    ).toBe('opened_at');
  });

  it('keeps the audit column as the end only when nothing else ends the record', () => {
    const records = table([
      ['created_at', 'TIMESTAMP'],
      ['updated_at', 'TIMESTAMP'],
    ]);
    expect(mainTime(records)?.name).toBe('created_at');
    expect(milestoneTimes(records).map((column) => column.name)).toEqual(['updated_at']);
  });
});

describe('when a column is named like an identifier', () => {
  it('is a key when nearly every value is distinct, and a column to group by when values repeat', () => {
    const records = table([
      ['number', 'VARCHAR'],
      ['caller_id', 'VARCHAR'],
      ['source_id', 'VARCHAR'],
    ]);
    const [, caller, source] = records.columns;
    expect(caller?.role).toBe('reference');
    caller!.distinct = 4;
    source!.distinct = 480;
    refineRoles([records]);
    expect(caller?.role).toBe('text');
    expect(source?.role).toBe('reference');
  });

  it('tells many-valued groups (owners) from free text (descriptions)', () => {
    const records = table([
      ['owner', 'VARCHAR'],
      ['short_description', 'VARCHAR'],
      ['serial', 'VARCHAR'],
    ]);
    const [owner, description, serial] = records.columns;
    Object.assign(owner!, { distinct: 54, words: 2 });
    Object.assign(description!, { distinct: 430, words: 5.5 });
    Object.assign(serial!, { distinct: 490, words: 1 });
    expect(isEntity(owner!, records.rows)).toBe(true);
    expect(isFreeText(description!)).toBe(true);
    expect(isEntity(serial!, records.rows)).toBe(false);
    expect(isFreeText(serial!)).toBe(false);
  });
});

describe('when names hold spaces, accents or multi-word types', () => {
  it('reads lookup replies and catalog lines as the engine renders them, names quoted, comments skipped', () => {
    const workItems: TableSchema = {
      schema: 'main',
      name: 'Work Items',
      qualified: 'main.Work Items',
      rowCount: 1_200,
      comment: 'Tickets | one "row" per item',
      columns: [
        { name: 'Airport Name', type: 'VARCHAR', nullable: true, category: 'dimension', comment: 'IATA name [dimension] NULL' },
        { name: 'Région', type: 'VARCHAR', nullable: true, category: 'dimension' },
        { name: 'opened at', type: 'TIMESTAMP WITH TIME ZONE', nullable: false, category: 'time' },
        { name: 'Unit Price', type: 'numeric(10,2)', nullable: true, category: 'metric' },
        { name: 'item_id', type: 'BIGINT', nullable: false, category: 'primary_key' },
      ],
      samples: [],
    };
    const { comment: _comment, ...uncommented } = workItems;
    const items: TableSchema = { ...uncommented, name: 'items', qualified: 'main.items', rowCount: 50 };
    const [parsed] = readLookupReply(renderTableDetail(workItems));
    expect(parsed?.qualified).toBe('main.Work Items');
    expect(parsed?.columns.map((column) => [column.name, column.type])).toEqual([
      ['Airport Name', 'VARCHAR'],
      ['Région', 'VARCHAR'],
      ['opened at', 'TIMESTAMP WITH TIME ZONE'],
      ['Unit Price', 'numeric(10,2)'],
      ['item_id', 'BIGINT'],
    ]);
    const catalog = renderCatalog([workItems, items], { areaKeywords: ['items'] }).text;
    expect(catalog).toContain('main."Work Items" | 5c | 1.2K rows | items | -> items | comment "Tickets | one \\"row\\" per item"');
    expect(readCatalog(catalog).map((entry) => [entry.qualified, entry.rows, entry.keywords, entry.joins])).toEqual([
      ['main.Work Items', 1_200, ['items'], ['items']],
      ['main.items', 50, ['items'], []],
    ]);
    // a catalog written by hand, without quotes, still reads up to the first separator
    expect(readCatalog('main.Work Items | 9c | 1.2K rows | category').map((entry) => [entry.qualified, entry.rows])).toEqual([
      ['main.Work Items', 1_200],
    ]);
  });

  it('keeps letters of every script in words, and names rows and values in plain plurals', () => {
    expect(wordsOf('Région_Name')).toEqual(['région', 'name']);
    expect(rowsNoun('flag_12')).toBe('flag 12 rows');
    expect(rowsNoun('incidents')).toBe('incidents');
    expect(pluralNoun('category')).toBe('categories');
    expect(pluralNoun('assigned to')).toBe('assigned to values');
  });
});

describe('when reading a claim back from the SQL that measured a finding', () => {
  const duckdbDuration = sqlDialect('duckdb').fractionalDaysBetween('t."Opened At"', 't.closed_at');
  const postgresDuration = sqlDialect('postgres').fractionalDaysBetween('t."Opened At"', 't.closed_at');

  it('recognises durations in both dialects, means, status shares and quoted names', () => {
    const sql = `SELECT COALESCE(CAST(t."Région" AS VARCHAR), '(none)') AS r_gion, COUNT(*) AS items,
       AVG(${duckdbDuration}) AS avg_days_opened_to_closed,
       AVG(CAST(t.amount AS DOUBLE PRECISION)) AS avg_amount,
       AVG(CASE WHEN t.status = 'Won''t fix' THEN 1.0 ELSE 0.0 END) AS status_won_t_fix_rate
FROM main."Work Items" t GROUP BY 1`;
    expect(sourceTable(sql)).toBe('main.Work Items');
    expect(segmentSource(sql, 'r_gion')).toBe('Région');
    expect(measureSource(sql, 'avg_days_opened_to_closed')).toEqual({ kind: 'duration_mean', start: 'Opened At', end: 'closed_at' });
    expect(measureSource(`SELECT AVG(${postgresDuration}) AS d FROM main.x t`, 'd')).toEqual({
      kind: 'duration_mean',
      start: 'Opened At',
      end: 'closed_at',
    });
    expect(measureSource(sql, 'avg_amount')).toEqual({ kind: 'mean', column: 'amount' });
    expect(measureSource(sql, 'status_won_t_fix_rate')).toEqual({
      kind: 'rate',
      condition: { column: 'status', op: '=', value: "Won't fix" },
    });
  });

  it('states no claim when another table is joined in, or the segment has no value', () => {
    const joined = `SELECT COALESCE(CAST(r1.region AS VARCHAR), '(none)') AS region, AVG(CAST(t.amount AS DOUBLE PRECISION)) AS avg_amount FROM main.orders t LEFT JOIN main.customers r1 ON r1.id = t.customer_id GROUP BY 1`;
    expect(
      gapClaim({
        sql: joined,
        segmentColumn: 'region',
        segmentValue: 'North',
        measureColumn: 'avg_amount',
        value: 2,
        restValue: 1,
        label: '',
      }),
    ).toBeUndefined();
    const own = 'SELECT t.region AS region, AVG(CAST(t.amount AS DOUBLE PRECISION)) AS avg_amount FROM main.orders t GROUP BY 1';
    expect(
      gapClaim({
        sql: own,
        segmentColumn: 'region',
        segmentValue: '(none)',
        measureColumn: 'avg_amount',
        value: 2,
        restValue: 1,
        label: '',
      }),
    ).toBeUndefined();
    expect(
      gapClaim({
        sql: own,
        segmentColumn: 'region',
        segmentValue: 'North',
        measureColumn: 'avg_amount',
        value: 2,
        restValue: 1,
        label: 'x',
      }),
    ).toMatchObject({
      metric: { kind: 'mean', table: 'main.orders', column: 'amount' },
      segment: { column: 'region', value: 'North' },
      direction: 'higher',
    });
  });
});

describe('when verifying a finding narrowed by a second column', () => {
  it('adds an equality filter per recount_where entry', async () => {
    const source = 'SELECT dimension, "value", term, tickets_with_term FROM terms';
    const finding = JSON.stringify({
      name: 'printer',
      metrics: {
        segment_column: 'value',
        segment_value: 'Hardware',
        recount_where: JSON.stringify({ dimension: 'category', term: "printer's" }),
        count_column: 'tickets_with_term',
        source_step: 4,
      },
    });
    const reply = await createOfflineAnalyst()(verificationRequest(finding, `Step 4 — terms (3 rows):\n\`\`\`sql\n${source}\n\`\`\``));
    const parsed = parseAction(reply, VERIFIER_ACTIONS);
    expect(parsed.ok && parsed.action.type === 'query' ? parsed.action.query : '').toBe(
      `SELECT SUM(tickets_with_term) AS count\nFROM (\n${source}\n) finding_rows\nWHERE "value" = 'Hardware' AND dimension = 'category' AND term = 'printer''s'`,
    );
  });
});
