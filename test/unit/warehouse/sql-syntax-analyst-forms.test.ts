/**
 * The SqlSyntax members the offline analyst writes its exploration with, in each dialect's spelling:
 * an ordered string aggregate, a least-squares slope, whole days between two timestamps, a month as
 * `YYYY-MM` text and a word splitter (undefined where the engine has none in a SELECT list).
 */
import { describe, expect, it } from 'vitest';
import { SQL_DIALECTS, type SqlDialect } from '../../../src/warehouse/dialect.js';
import { sqlSyntaxFor } from '../../../src/warehouse/sql-syntax/index.js';

const FORMS: Record<SqlDialect, { concat: string; days: string; month: string; words: string | undefined; slope: RegExp }> = {
  duckdb: {
    concat: "string_agg(v, '|' ORDER BY v)",
    days: "date_diff('day', CAST(a AS DATE), CAST(b AS DATE))",
    month: "strftime(CAST(a AS TIMESTAMP), '%Y-%m')",
    words: "UNNEST(regexp_split_to_array(lower(CAST(body AS VARCHAR)), '[[:space:][:punct:]]+'))",
    slope: /^CAST\(regr_slope\(y, x\) AS DOUBLE\)$/,
  },
  postgres: {
    concat: "string_agg(v, '|' ORDER BY v)",
    days: '(CAST(b AS DATE) - CAST(a AS DATE))',
    month: "to_char(CAST(a AS TIMESTAMP), 'YYYY-MM')",
    words: "regexp_split_to_table(lower(CAST(body AS TEXT)), '[[:space:][:punct:]]+')",
    slope: /^CAST\(regr_slope\(y, x\) AS DOUBLE PRECISION\)$/,
  },
  mysql: {
    concat: "GROUP_CONCAT(v ORDER BY v SEPARATOR '|')",
    days: 'DATEDIFF(CAST(b AS DATETIME(6)), CAST(a AS DATETIME(6)))',
    month: "DATE_FORMAT(CAST(a AS DATETIME(6)), '%Y-%m')",
    words: undefined,
    slope: /^CAST\(\(SUM\(CASE WHEN y IS NOT NULL AND x IS NOT NULL THEN 1\.0 END\) \* SUM\(.*\/ NULLIF\(.*, 0\) AS DOUBLE\)$/,
  },
  clickhouse: {
    concat: "arrayStringConcat(arraySort(groupArray(v)), '|')",
    days: "dateDiff('day', toDate(a), toDate(b))",
    month: "formatDateTime(toDateTime(a), '%Y-%m')",
    words: "arrayJoin(splitByRegexp('[[:space:][:punct:]]+', lowerUTF8(toString(body))))",
    slope: /^if\(isFinite\(toFloat64\(.*\)\), toFloat64\(.*\), NULL\)$/,
  },
  bigquery: {
    concat: "STRING_AGG(v, '|' ORDER BY v)",
    days: 'DATE_DIFF(DATE(CAST(b AS TIMESTAMP)), DATE(CAST(a AS TIMESTAMP)), DAY)',
    month: "FORMAT_TIMESTAMP('%Y-%m', CAST(a AS TIMESTAMP))",
    words: undefined,
    slope: /^CAST\(\(SUM\(CASE WHEN y IS NOT NULL AND x IS NOT NULL THEN 1\.0 END\) \* SUM\(.*\/ NULLIF\(.*, 0\) AS FLOAT64\)$/,
  },
  snowflake: {
    concat: "LISTAGG(v, '|') WITHIN GROUP (ORDER BY v)",
    days: 'DATEDIFF(day, CAST(a AS TIMESTAMP_NTZ), CAST(b AS TIMESTAMP_NTZ))',
    month: "TO_CHAR(CAST(a AS TIMESTAMP_NTZ), 'YYYY-MM')",
    words: undefined,
    slope: /^CAST\(REGR_SLOPE\(y, x\) AS DOUBLE\)$/,
  },
};

describe.each(SQL_DIALECTS)('the analyst members of SqlSyntax on %s', (dialect) => {
  const syntax = sqlSyntaxFor(dialect);
  const forms = FORMS[dialect];

  it('joins values in order with the separator escaped as data', () => {
    expect(syntax.orderedConcat('v', '|')).toBe(forms.concat);
    expect(syntax.orderedConcat('v', "'")).toContain(syntax.string("'"));
  });

  it('counts whole calendar days from the first timestamp to the second', () => {
    expect(syntax.daysBetween('a', 'b')).toBe(forms.days);
  });

  it('writes a month as YYYY-MM text', () => {
    expect(syntax.monthText('a')).toBe(forms.month);
  });

  it('splits text into one row per lower-case word, or says it cannot', () => {
    expect(syntax.wordRows('body')).toBe(forms.words);
  });

  it('measures a slope of y on x as double precision', () => {
    expect(syntax.slope('y', 'x')).toMatch(forms.slope);
  });
});
