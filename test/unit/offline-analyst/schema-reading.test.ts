/**
 * Reading a schema by meaning: the time axis by role (a record's start before its end and before audit
 * columns, whatever the column order), identifier-named columns as keys only when they behave like
 * keys, and names with spaces, accents and multi-word types read whole.
 */
import { describe, expect, it } from 'vitest';
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
import type { TableModel } from '../../../src/llm/offline-analyst/types.js';
import { pluralNoun, rowsNoun, wordsOf } from '../../../src/llm/offline-analyst/text.js';

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
