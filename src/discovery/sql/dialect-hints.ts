/**
 * What a model fixing a failed statement needs to know about the engine it runs on: how names are
 * quoted, how dates are truncated and differenced, what the engine lacks that other dialects have.
 * One short list per dialect, rendered into the sql_fix prompt (`{{DIALECT_HINTS}}`), so a fix for
 * MariaDB or ClickHouse is not written in DuckDB's idiom.
 */
import type { SqlDialect } from '../../warehouse/dialect.js';

export const DIALECT_HINTS: Readonly<Record<SqlDialect, readonly string[]>> = {
  duckdb: [
    'Quote names with double quotes ("order"); strings with single quotes.',
    "Dates: date_trunc('month', ts), date_diff('day', a, b), ts + INTERVAL 7 DAY, strftime(ts, '%Y-%m').",
    "Aggregates: median(x), quantile_cont(x, 0.9), corr(y, x), string_agg(x, ',' ORDER BY x), count(*) FILTER (WHERE …).",
    'Integer division `/` returns a double; `//` is integer division.',
  ],
  postgres: [
    'Quote names with double quotes ("order"); unquoted names fold to lower case.',
    "Dates: date_trunc('month', ts), ts::date - other::date for days, ts + INTERVAL '7 days', to_char(ts, 'YYYY-MM').",
    "Aggregates: percentile_cont(0.5) WITHIN GROUP (ORDER BY x), corr(y, x), string_agg(x, ',' ORDER BY x), count(*) FILTER (WHERE …).",
    'Integer / integer truncates: multiply by 1.0 first. round(x, n) needs NUMERIC: round(x::numeric, 2).',
  ],
  mysql: [
    'Quote names with backticks (`order`), never double quotes: "x" is a string literal here. Strings take single quotes; a backslash escapes.',
    "Dates: DATE_FORMAT(ts, '%Y-%m-01') for the month, DATE(ts), DATEDIFF(later, earlier) in days, TIMESTAMPDIFF(SECOND, a, b), DATE_ADD(ts, INTERVAL 7 DAY). No date_trunc, no ::casts — CAST(x AS DATETIME), CAST(x AS DOUBLE), CAST(x AS CHAR).",
    "No FILTER (WHERE …): write SUM(CASE WHEN … THEN 1 ELSE 0 END). No median, percentile_cont or corr aggregates: compute them from sums or leave them out. GROUP_CONCAT(x ORDER BY x SEPARATOR ',') joins text.",
    'No FULL OUTER JOIN; window functions and WITH … AS (…) are fine. Text comparisons and GROUP BY ignore case under the default collation.',
    'LIMIT is not allowed inside an IN (subquery): join a derived table instead.',
  ],
  clickhouse: [
    'Quote names with backticks or double quotes; function names are case-sensitive (toStartOfMonth, not TOSTARTOFMONTH). Strings take single quotes.',
    "Dates: toStartOfMonth(ts), toStartOfWeek(ts, 1), toDate(ts), dateDiff('day', a, b), addDays(ts, 7), formatDateTime(ts, '%Y-%m').",
    "Aggregates: quantile(0.5)(x) or median(x), corr(y, x), countIf(cond), avgIf(x, cond), sumIf(x, cond), uniqExact(x); arrayStringConcat(arraySort(groupArray(x)), ',') joins text.",
    'Every selected column that is not aggregated must be in GROUP BY, by expression or alias; two columns may not share an alias.',
    'Old servers (18.x, as Debian ships) have no window functions (OVER), no GROUP BY 1 and one JOIN per SELECT: group by the expressions, nest a SELECT in FROM for each further join. WITH name AS (subquery) is fine: it is inlined for them.',
    'Casts: toFloat64(x), toString(x), toDateTime(x). Division of integers returns a float; intDiv(a, b) is integer division.',
  ],
  bigquery: [
    'Quote names with backticks (`project.dataset.table`); strings with single or double quotes.',
    "Dates: DATE_TRUNC(d, MONTH), TIMESTAMP_TRUNC(ts, MONTH), DATE_DIFF(a, b, DAY), TIMESTAMP_DIFF(a, b, SECOND), DATE_ADD(d, INTERVAL 7 DAY), FORMAT_TIMESTAMP('%Y-%m', ts).",
    "Aggregates: APPROX_QUANTILES(x, 100)[OFFSET(50)], CORR(y, x), COUNTIF(cond), STRING_AGG(x, ',' ORDER BY x); PERCENTILE_CONT is an analytic function (OVER ()).",
    'Casts: CAST(x AS FLOAT64), CAST(x AS STRING), SAFE_DIVIDE(a, b) for a division that may be by zero.',
  ],
  snowflake: [
    'Quote names with double quotes; unquoted names fold to upper case, so a lower-case name must be quoted as it is listed.',
    "Dates: DATE_TRUNC('month', ts), DATEDIFF('day', a, b), DATEADD('day', 7, ts), TO_CHAR(ts, 'YYYY-MM').",
    "Aggregates: MEDIAN(x), PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY x), CORR(y, x), COUNT_IF(cond), LISTAGG(x, ',') WITHIN GROUP (ORDER BY x).",
    'Casts: x::FLOAT or CAST(x AS VARCHAR); DIV0(a, b) for a division that may be by zero.',
  ],
};

/** The hints as a bullet list for the prompt. */
export function renderDialectHints(dialect: SqlDialect): string {
  return DIALECT_HINTS[dialect].map((hint) => `- ${hint}`).join('\n');
}
