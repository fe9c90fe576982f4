/**
 * Tables that copy live data rather than hold it: snapshots, logs, backups, temp and staging copies
 * (`orders_2019`, `customers_bkp`, `stg_events`, anything in a `staging` or `archive` schema). The
 * catalog drops them first when over budget; pack generation, mining and the offline analyst leave
 * them out, since they only repeat the live tables. One definition, read by all of them.
 */

/** Name suffixes of copies: `_2023`, `_202301`, `_2023_01`, `_log`, `_archive`, `_bkp`, `_tmp`, `_stg` … */
const ARCHIVE_SHAPED = /_(?:\d{4}(?:_?\d{2}){0,2}|logs?|archived?|bkp|backup|bak|old|tmp|temp|stg|staging)$/i;
/** Schemas that hold copies of the live data, not the live data itself. */
const COPY_SCHEMA = /(^|_)(archive|archived|backup|backups|staging|stage|stg|tmp|temp|scratch|sandbox)$/i;
/** Table names of copies the suffixes above do not cover. */
const COPY_NAME = /(^stg_|^tmp_|_(hist|history|copy|snapshot|v\d+)$)/i;

/** A table name shaped like a dated, log or backup copy (the schema is not looked at). */
export function isArchiveShaped(tableName: string): boolean {
  return ARCHIVE_SHAPED.test(tableName);
}

/** A table that copies live data, judged by its name and its schema's name. */
export function isTableCopy(table: { schema: string; name: string }): boolean {
  return isArchiveShaped(table.name) || COPY_SCHEMA.test(table.schema) || COPY_NAME.test(table.name);
}
