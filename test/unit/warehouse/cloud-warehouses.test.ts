/**
 * What can be checked of the BigQuery and Snowflake adapters without their services: result
 * conversion from the official clients' response shapes, BigQuery's dry-run statement-type check, and
 * the tenant filter's rewrite in each dialect (parsed, rewritten, parsed again).
 */
import { BigQuery } from '@google-cloud/bigquery';
import { describe, expect, it } from 'vitest';
import { UnsafeSqlError } from '../../../src/errors/index.js';
import { bigqueryCell, type BigqueryField } from '../../../src/warehouse/bigquery/bigquery-cells.js';
import { BIGQUERY_GUARD_RULES } from '../../../src/warehouse/bigquery/bigquery-sql-guard.js';
import { checkDryRunStatementType } from '../../../src/warehouse/bigquery/bigquery-warehouse.js';
import { guardSql } from '../../../src/warehouse/index.js';
import { snowflakeCell } from '../../../src/warehouse/snowflake/snowflake-cells.js';
import { SNOWFLAKE_GUARD_RULES } from '../../../src/warehouse/snowflake/snowflake-sql-guard.js';
import { bigquerySyntax } from '../../../src/warehouse/sql-syntax/bigquery.js';
import { snowflakeSyntax } from '../../../src/warehouse/sql-syntax/snowflake.js';
import type { TreeAllowedSql } from '../../../src/warehouse/sql-tree/tree-guard.js';
import { applyTreeTenantFilter } from '../../../src/warehouse/sql-tree/tree-tenant-rewrite.js';

/** A `jobs.getQueryResults` response body as the BigQuery REST API sends it: values as strings in `f`/`v` cells, timestamps as int64 microseconds (the client's default format). */
const RECORDED_QUERY_RESPONSE = {
  schema: {
    fields: [
      { name: 'd', type: 'DATE', mode: 'NULLABLE' },
      { name: 'ts', type: 'TIMESTAMP', mode: 'NULLABLE' },
      { name: 'dt', type: 'DATETIME', mode: 'NULLABLE' },
      { name: 'big', type: 'INTEGER', mode: 'NULLABLE' },
      { name: 'small', type: 'INTEGER', mode: 'NULLABLE' },
      { name: 'amount', type: 'NUMERIC', mode: 'NULLABLE' },
      { name: 'ratio', type: 'FLOAT', mode: 'NULLABLE' },
      { name: 'nothing', type: 'INTEGER', mode: 'NULLABLE' },
      { name: 'yes', type: 'BOOLEAN', mode: 'NULLABLE' },
      { name: 'tags', type: 'STRING', mode: 'REPEATED' },
      { name: 'payload', type: 'BYTES', mode: 'NULLABLE' },
      { name: 'place', type: 'RECORD', mode: 'NULLABLE', fields: [{ name: 'city', type: 'STRING', mode: 'NULLABLE' }] },
    ] as Array<BigqueryField & { fields?: BigqueryField[] }>,
  },
  rows: [
    {
      f: [
        { v: '2024-03-01' },
        { v: '1709287872000000' },
        { v: '2024-03-01T10:11:12' },
        { v: '9007199254740993' },
        { v: '42' },
        { v: '12.34' },
        { v: '0.25' },
        { v: null },
        { v: 'true' },
        { v: [{ v: 'a' }, { v: 'b' }] },
        { v: Buffer.from('hello').toString('base64') },
        { v: { f: [{ v: 'Oslo' }] } },
      ],
    },
  ],
};

describe('when BigQuery returns rows', () => {
  it('converts what the official client makes of them into JSON-safe cells', () => {
    const [row] = BigQuery.mergeSchemaWithRows_(RECORDED_QUERY_RESPONSE.schema, RECORDED_QUERY_RESPONSE.rows, {
      wrapIntegers: true,
    }) as Array<Record<string, unknown>>;
    const cells = Object.fromEntries(
      RECORDED_QUERY_RESPONSE.schema.fields.map((field) => [field.name, bigqueryCell(row?.[field.name ?? ''], field)]),
    );
    expect(cells).toEqual({
      d: '2024-03-01',
      ts: '2024-03-01T10:11:12.000Z',
      dt: '2024-03-01T10:11:12.000Z',
      big: '9007199254740993',
      small: 42,
      amount: 12.34,
      ratio: 0.25,
      nothing: null,
      yes: true,
      tags: '["a","b"]',
      payload: '<blob 5 bytes>',
      place: '{"city":"Oslo"}',
    });
  });
});

describe("when BigQuery's dry run reports the statement type", () => {
  it('lets only SELECT through', () => {
    expect(() => checkDryRunStatementType('SELECT')).not.toThrow();
    for (const type of ['SCRIPT', 'DELETE', 'EXPORT_DATA', 'CREATE_TABLE_AS_SELECT', undefined]) {
      expect(() => checkDryRunStatementType(type)).toThrow(UnsafeSqlError);
    }
    expect(() => checkDryRunStatementType('SCRIPT')).toThrow("BigQuery's dry run reports SCRIPT");
  });
});

describe('when Snowflake returns rows', () => {
  it('converts the values the driver hands back (numbers and dates as text) into JSON-safe cells', () => {
    expect(snowflakeCell('9007199254740993', { type: 'fixed', scale: 0 })).toBe('9007199254740993');
    expect(snowflakeCell('42', { type: 'fixed', scale: 0 })).toBe(42);
    expect(snowflakeCell('12.34', { type: 'fixed', scale: 2 })).toBe(12.34);
    expect(snowflakeCell('0.25', { type: 'real', scale: 0 })).toBe(0.25);
    expect(snowflakeCell('2024-03-01', { type: 'date', scale: 0 })).toBe('2024-03-01');
    expect(snowflakeCell('2024-03-01 10:11:12.000', { type: 'timestamp_ntz', scale: 3 })).toBe('2024-03-01T10:11:12.000Z');
    expect(snowflakeCell('2024-03-01 10:11:12.000+02:00', { type: 'timestamp_tz', scale: 3 })).toBe('2024-03-01T08:11:12.000Z');
    expect(snowflakeCell(true, { type: 'boolean', scale: 0 })).toBe(true);
    expect(snowflakeCell({ a: [1, 2] }, { type: 'variant', scale: 0 })).toBe('{"a":[1,2]}');
    expect(snowflakeCell(Buffer.from('abc'), { type: 'binary', scale: 0 })).toBe('<blob 3 bytes>');
    expect(snowflakeCell(null, { type: 'text', scale: 0 })).toBeNull();
  });
});

describe('when a tenant filter applies to a BigQuery or Snowflake statement', () => {
  const filter = { field: 'customer_id', value: "o'brien" };

  it('wraps every reference to a filtered table, in BigQuery quoting, and the result passes the guard', async () => {
    const allowed = (await guardSql(
      'SELECT o.id FROM `shop.orders` o JOIN shop.customers c ON c.id = o.customer_id WHERE o.id IN (SELECT id FROM orders)',
      'bigquery',
    )) as TreeAllowedSql;
    const rewritten = await applyTreeTenantFilter(allowed, {
      filter,
      filtered: new Set(['shop.orders']),
      defaultSchema: 'shop',
      syntax: bigquerySyntax,
      rules: BIGQUERY_GUARD_RULES,
    });
    expect(rewritten).toBe(
      "SELECT o.id FROM (SELECT * FROM `shop`.`orders` WHERE `customer_id` = 'o\\'brien') o JOIN shop.customers c ON c.id = o.customer_id WHERE o.id IN (SELECT id FROM (SELECT * FROM `shop`.`orders` WHERE `customer_id` = 'o\\'brien') AS `orders`)",
    );
    expect(await guardSql(rewritten, 'bigquery')).toMatchObject({ allowed: true });
  });

  it('wraps every reference in Snowflake quoting, and refuses a CTE named like the filtered table', async () => {
    const allowed = (await guardSql('SELECT COUNT(*) FROM PUBLIC.ORDERS', 'snowflake')) as TreeAllowedSql;
    const context = {
      filter,
      filtered: new Set(['public.orders']),
      defaultSchema: 'PUBLIC',
      syntax: snowflakeSyntax,
      rules: SNOWFLAKE_GUARD_RULES,
    };
    expect(await applyTreeTenantFilter(allowed, context)).toBe(
      `SELECT COUNT(*) FROM (SELECT * FROM "PUBLIC"."ORDERS" WHERE "customer_id" = 'o''brien') AS "ORDERS"`,
    );
    const shadowing = (await guardSql('WITH orders AS (SELECT 1 AS id) SELECT id FROM orders', 'snowflake')) as TreeAllowedSql;
    await expect(applyTreeTenantFilter(shadowing, context)).rejects.toBeInstanceOf(UnsafeSqlError);
  });
});
