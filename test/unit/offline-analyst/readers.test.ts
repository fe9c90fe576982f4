import { describe, expect, it } from 'vitest';
import { decodeMemo, encodeMemo } from '../../../src/llm/offline-analyst/memo.js';
import { readAreas, readCatalog, readDialect } from '../../../src/llm/offline-analyst/readers/catalog.js';
import { readLookupReply } from '../../../src/llm/offline-analyst/readers/lookup-reply.js';
import { findReferences, toTableModel } from '../../../src/llm/offline-analyst/schema-model.js';
import { renderTableDetail } from '../../../src/schema/lookup.js';
import { areas, explorationSystem, shopTables } from './prompts.js';

describe('when reading the exploration system prompt', () => {
  const system = explorationSystem();

  it('reads every catalog line with its row count and join hints', () => {
    const catalog = readCatalog(system);
    expect(catalog.map((entry) => entry.qualified)).toEqual(['shop.customers', 'shop.orders', 'shop.sessions']);
    const orders = catalog.find((entry) => entry.qualified === 'shop.orders');
    expect(orders?.rows).toBe(12_000);
    expect(orders?.joins).toEqual(expect.arrayContaining(['customers', 'sessions']));
  });

  it('reads the analysis areas with ids and keywords', () => {
    expect(readAreas(system).map((area) => area.id)).toEqual(areas.map((area) => area.id));
    expect(readAreas(system)[0]?.keywords).toEqual(areas[0]?.keywords);
  });

  it('reads the dialect', () => {
    expect(readDialect(system)).toBe('duckdb');
    expect(readDialect(explorationSystem(shopTables, 'postgres'))).toBe('postgres');
  });

  it.each(['mysql', 'clickhouse', 'bigquery', 'snowflake'] as const)('reads the %s dialect from its display name', (dialect) => {
    expect(readDialect(explorationSystem(shopTables, dialect))).toBe(dialect);
  });
});

describe('when reading a lookup reply', () => {
  it('keeps exactly the columns the reply lists, with their roles', () => {
    const [sessions] = readLookupReply(renderTableDetail(shopTables[0]!));
    expect(sessions?.qualified).toBe('shop.sessions');
    expect(sessions?.columns.map((column) => column.name)).toEqual([
      'session_id',
      'customer_id',
      'started_at',
      'device_type',
      'reached_checkout',
    ]);
    const model = toTableModel(sessions!);
    expect(model.columns.map((column) => column.role)).toEqual(['key', 'reference', 'time', 'text', 'flag']);
  });

  it('finds which column references which table', () => {
    const models = shopTables.map((table) => toTableModel(readLookupReply(renderTableDetail(table))[0]!));
    const references = findReferences(models)
      .map((reference) => `${reference.from.name}.${reference.column.name} -> ${reference.to.name}`)
      .sort();
    expect(references).toEqual(['orders.customer_id -> customers', 'orders.session_id -> sessions', 'sessions.customer_id -> customers']);
  });
});

describe('when the analyst keeps notes between turns', () => {
  it('reads back what it wrote, and the notes carry no readable table or column words', () => {
    const tables = shopTables.map((table) => toTableModel(readLookupReply(renderTableDetail(table))[0]!));
    const memo = { tables, done: ['profile', 'conversion#abc'], profiled: true, searched: false };
    const thinking = `Checking devices. ${encodeMemo(memo)}`;
    expect(decodeMemo(thinking)).toEqual(memo);
    expect(encodeMemo(memo)).not.toMatch(/session|checkout|order/);
  });

  it('forgets detail, then the last-learned tables, to fit a length, and always keeps the plan already run', () => {
    const tables = shopTables.map((table) => toTableModel(readLookupReply(renderTableDetail(table))[0]!));
    for (const table of tables) for (const column of table.columns) column.values = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const memo = { tables, done: ['profile', 'conversion#abc'], profiled: true, searched: false };
    const bare = (count: number) => ({
      ...memo,
      tables: tables
        .slice(0, count)
        .map((table) => ({ ...table, columns: table.columns.map(({ values: _v, words: _w, ...column }) => column) })),
    });
    const limit = encodeMemo(bare(2)).length;
    expect(encodeMemo(memo).length).toBeGreaterThan(limit);
    const short = encodeMemo(memo, limit);
    expect(short.length).toBeLessThanOrEqual(limit);
    const read = decodeMemo(short)!;
    expect(read.done).toEqual(memo.done);
    expect(read.tables.length).toBeGreaterThanOrEqual(1);
    expect(read.tables.every((table) => table.columns.every((column) => (column.values?.length ?? 0) <= 3))).toBe(true);
    // one table is kept even when nothing fits: the reply is then longer than asked, never empty of tables
    expect(decodeMemo(encodeMemo(memo, 10))!.tables).toHaveLength(1);
  });

  it('returns null for notes that were cut', () => {
    expect(decodeMemo('[notes:78da00ff]')).toBeNull();
    expect(decodeMemo('no notes here')).toBeNull();
  });
});
