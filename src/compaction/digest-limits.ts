/** The size bounds of a result digest (analysis-phase-compaction seed), shared by the digest and its column statistics. */

/** Results this small are inlined whole: a digest would not be shorter and the rows say more. */
export const COMPACT_INLINE_THRESHOLD = 20;
/** Above this many distinct values a column may hold identifiers or PII: its values are never shown as top values. */
export const TOP_VALUE_CARDINALITY = 20;
/** Rows shown from each end of a larger result: enough to see the shape and the ordering. */
export const HEAD_TAIL_ROW_COUNT = 5;
/** Top values per low-cardinality column: the dominant categories without listing them all. */
export const TOP_VALUE_COUNT = 3;
/** Longest string kept in a cell, top value or column name: one huge cell must not blow the digest. */
export const CELL_MAX_CHARS = 64;
/** Columns summarised at most: wide (200+ column) results stay a bounded size. */
export const DIGEST_MAX_COLUMNS = 40;
/** Columns shown per head/tail/all row at most: rows are examples, the summaries carry the width. */
export const ROW_MAX_COLUMNS = 20;
/** Names listed in `omitted_columns` at most; `column_count` still gives the total. */
export const OMITTED_COLUMN_NAMES_MAX = 40;
