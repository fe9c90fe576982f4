/**
 * The DuckDB functions agent SQL may call (docs/architecture.md, "Read-only by construction"). DuckDB
 * matches names case-insensitively, quoted or not, and its built-ins live in `system.main` (and
 * `pg_catalog` for PostgreSQL-compatible macros). Built from `duckdb_functions()` of DuckDB 1.5: every
 * built-in scalar function, macro and aggregate, less those that read files, URLs, settings, secrets,
 * the environment or engine metadata, run SQL held in a string, sleep, log, or touch sequences and the
 * random seed. To allow another function, add its name to its group; a test checks that every function
 * the engine's own SQL uses is here.
 */
import type { SqlFunctionList } from '../sql-functions.js';

/** Operators, which DuckDB's parser writes as function calls (`a + b` is `"+"(a, b)`, `LIKE` is `~~`). */
// biome-ignore format: a packed list of names reads better than one name per line
const OPERATORS = [
  '||', '|', '!__postfix', '!~~', '!~~*', '%', '&', '&&', '*', '**', '+', '-', '->>', '/', '//', '<->', '<<', '<=>', '<@', '>>', '@', '@>',
  '^', '^@', '~', '~~', '~~*', '~~~',
];

/** Scalar functions and macros: math, strings, regex, dates and times, lists, maps, structs, JSON reading, hashing. */
// biome-ignore format: a packed list of names reads better than one name per line
const SCALAR = [
  'abs', 'acos', 'acosh', 'add', 'age', 'ago', 'apply', 'array_append', 'array_apply', 'array_cat', 'array_concat', 'array_contains',
  'array_cosine_distance', 'array_cosine_similarity', 'array_cross_product', 'array_distance', 'array_distinct', 'array_dot_product',
  'array_extract', 'array_filter', 'array_grade_up', 'array_has', 'array_has_all', 'array_has_any', 'array_indexof', 'array_inner_product',
  'array_intersect', 'array_length', 'array_negative_dot_product', 'array_negative_inner_product', 'array_pop_back', 'array_pop_front',
  'array_position', 'array_prepend', 'array_push_back', 'array_push_front', 'array_reduce', 'array_resize', 'array_reverse',
  'array_reverse_sort', 'array_select', 'array_slice', 'array_sort', 'array_to_json', 'array_to_string', 'array_to_string_comma_default',
  'array_transform', 'array_unique', 'array_value', 'array_where', 'array_zip', 'ascii', 'asin', 'asinh', 'atan', 'atan2', 'atanh', 'bar',
  'base64', 'bin', 'bit_count', 'bit_length', 'bit_position', 'bitstring', 'cardinality', 'cbrt', 'ceil', 'ceiling', 'century',
  'char_length', 'character_length', 'chr', 'concat', 'concat_ws', 'contains', 'cos', 'cosh', 'cot', 'current_catalog', 'current_database',
  'current_date', 'current_localtime', 'current_localtimestamp', 'current_role', 'current_schema', 'current_user', 'damerau_levenshtein',
  'date_add', 'date_diff', 'date_part', 'date_sub', 'date_trunc', 'datediff', 'datepart', 'datesub', 'datetrunc', 'day', 'dayname',
  'dayofmonth', 'dayofweek', 'dayofyear', 'days_in_month', 'decade', 'decode', 'degrees', 'divide', 'editdist3', 'element_at', 'encode',
  'ends_with', 'enum_code', 'enum_first', 'enum_last', 'enum_range', 'enum_range_boundary', 'epoch', 'epoch_ms', 'epoch_ns', 'epoch_us',
  'equi_width_bins', 'era', 'even', 'exp', 'factorial', 'fdiv', 'filter', 'flatten', 'floor', 'fmod', 'format', 'formatReadableDecimalSize',
  'formatReadableSize', 'format_bytes', 'from_base64', 'from_binary', 'from_hex', 'from_json', 'from_json_strict', 'gamma', 'gcd',
  'gen_random_uuid', 'generate_series', 'generate_subscripts', 'geomean', 'geometric_mean', 'get_bit', 'get_current_time',
  'get_current_timestamp', 'grade_up', 'greatest', 'greatest_common_divisor', 'hamming', 'hash', 'hex', 'hour', 'ilike_escape', 'instr',
  'isfinite', 'isinf', 'isnan', 'isodow', 'isoyear', 'jaccard', 'jaro_similarity', 'jaro_winkler_similarity', 'json', 'json_array',
  'json_array_length', 'json_contains', 'json_exists', 'json_extract', 'json_extract_path', 'json_extract_path_text', 'json_extract_string',
  'json_group_array', 'json_group_object', 'json_group_structure', 'json_keys', 'json_merge_patch', 'json_object', 'json_pretty',
  'json_quote', 'json_structure', 'json_transform', 'json_transform_strict', 'json_type', 'json_valid', 'json_value', 'julian', 'last_day',
  'lcase', 'lcm', 'least', 'least_common_multiple', 'left', 'left_grapheme', 'len', 'length', 'length_grapheme', 'levenshtein', 'lgamma',
  'like_escape', 'list_any_value', 'list_append', 'list_apply', 'list_approx_count_distinct', 'list_avg', 'list_bit_and', 'list_bit_or',
  'list_bit_xor', 'list_bool_and', 'list_bool_or', 'list_cat', 'list_concat', 'list_contains', 'list_cosine_distance',
  'list_cosine_similarity', 'list_count', 'list_distance', 'list_distinct', 'list_dot_product', 'list_element', 'list_entropy',
  'list_extract', 'list_filter', 'list_first', 'list_grade_up', 'list_has', 'list_has_all', 'list_has_any', 'list_histogram',
  'list_indexof', 'list_inner_product', 'list_intersect', 'list_kurtosis', 'list_kurtosis_pop', 'list_last', 'list_mad', 'list_max',
  'list_median', 'list_min', 'list_mode', 'list_negative_dot_product', 'list_negative_inner_product', 'list_pack', 'list_position',
  'list_prepend', 'list_product', 'list_reduce', 'list_resize', 'list_reverse', 'list_reverse_sort', 'list_select', 'list_sem',
  'list_skewness', 'list_slice', 'list_sort', 'list_stddev_pop', 'list_stddev_samp', 'list_string_agg', 'list_sum', 'list_transform',
  'list_unique', 'list_value', 'list_var_pop', 'list_var_samp', 'list_where', 'list_zip', 'ln', 'log', 'log10', 'log2', 'lower', 'lpad',
  'ltrim', 'make_date', 'make_time', 'make_timestamp', 'make_timestamp_ms', 'make_timestamp_ns', 'make_timestamptz', 'map', 'map_concat',
  'map_contains', 'map_contains_entry', 'map_contains_value', 'map_entries', 'map_extract', 'map_extract_value', 'map_from_entries',
  'map_keys', 'map_values', 'md5', 'md5_number', 'md5_number_lower', 'md5_number_upper', 'microsecond', 'millennium', 'millisecond',
  'minute', 'mismatches', 'mod', 'month', 'monthname', 'multiply', 'nanosecond', 'nextafter', 'nfc_normalize', 'normalized_interval',
  'not_ilike_escape', 'not_like_escape', 'now', 'nullif', 'octet_length', 'ord', 'parse_dirname', 'parse_dirpath', 'parse_filename',
  'parse_formatted_bytes', 'parse_path', 'pg_size_pretty', 'pg_typeof', 'pi', 'position', 'pow', 'power', 'prefix', 'printf', 'quarter',
  'radians', 'random', 'range', 'reduce', 'regexp_escape', 'regexp_extract', 'regexp_extract_all', 'regexp_full_match', 'regexp_matches',
  'regexp_replace', 'regexp_split_to_array', 'regexp_split_to_table', 'repeat', 'replace', 'reverse', 'right', 'right_grapheme', 'round',
  'round_even', 'roundbankers', 'row', 'row_to_json', 'rpad', 'rtrim', 'second', 'session_user', 'set_bit', 'sha1', 'sha256', 'sign',
  'signbit', 'sin', 'sinh', 'split', 'split_part', 'sqrt', 'starts_with', 'str_split', 'str_split_regex', 'strftime', 'string_split',
  'string_split_regex', 'string_to_array', 'strip_accents', 'strlen', 'strpos', 'strptime', 'struct_concat', 'struct_contains',
  'struct_extract', 'struct_extract_at', 'struct_has', 'struct_indexof', 'struct_insert', 'struct_keys', 'struct_pack', 'struct_position',
  'struct_update', 'struct_values', 'substr', 'substring', 'substring_grapheme', 'subtract', 'suffix', 'switch', 'tan', 'tanh',
  'time_bucket', 'timezone', 'timezone_hour', 'timezone_minute', 'to_base', 'to_base64', 'to_binary', 'to_centuries', 'to_days',
  'to_decades', 'to_hex', 'to_hours', 'to_json', 'to_microseconds', 'to_millennia', 'to_milliseconds', 'to_minutes', 'to_months',
  'to_quarters', 'to_seconds', 'to_timestamp', 'to_weeks', 'to_years', 'today', 'transaction_timestamp', 'translate', 'trim', 'trunc',
  'try_strptime', 'typeof', 'ucase', 'unbin', 'unhex', 'unicode', 'upper', 'url_decode', 'url_encode', 'user', 'uuid',
  'uuid_extract_timestamp', 'uuid_extract_version', 'uuidv4', 'uuidv7', 'version', 'wavg', 'week', 'weekday', 'weekofyear', 'weighted_avg',
  'xor', 'year', 'yearweek',
];

// biome-ignore format: a packed list of names reads better than one name per line
const AGGREGATES = [
  'any_value', 'approx_count_distinct', 'approx_quantile', 'approx_top_k', 'arbitrary', 'arg_max', 'arg_max_null', 'arg_max_nulls_last',
  'arg_min', 'arg_min_null', 'arg_min_nulls_last', 'argmax', 'argmin', 'array_agg', 'avg', 'bit_and', 'bit_or', 'bit_xor', 'bitstring_agg',
  'bool_and', 'bool_or', 'corr', 'count', 'count_if', 'count_star', 'countif', 'covar_pop', 'covar_samp', 'entropy', 'favg', 'first',
  'fsum', 'group_concat', 'histogram', 'histogram_exact', 'kahan_sum', 'kurtosis', 'kurtosis_pop', 'last', 'list', 'listagg', 'mad', 'max',
  'max_by', 'mean', 'median', 'min', 'min_by', 'mode', 'product', 'quantile', 'quantile_cont', 'quantile_disc', 'regr_avgx', 'regr_avgy',
  'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope', 'regr_sxx', 'regr_sxy', 'regr_syy', 'reservoir_quantile', 'sem', 'skewness',
  'stddev', 'stddev_pop', 'stddev_samp', 'string_agg', 'sum', 'sum_no_overflow', 'sumkahan', 'var_pop', 'var_samp', 'variance',
];

// biome-ignore format: a packed list of names reads better than one name per line
const WINDOW = [
  'cume_dist', 'dense_rank', 'fill', 'first_value', 'lag', 'last_value', 'lead', 'nth_value', 'ntile', 'percent_rank', 'rank', 'rank_dense',
  'row_number',
];

const SETTINGS = 'reads engine settings, secrets or the environment';

export const DUCKDB_FUNCTIONS: SqlFunctionList = {
  dialect: 'duckdb',
  engineName: 'DuckDB',
  builtinSchemas: ['main', 'pg_catalog'],
  builtinCatalogs: ['system'],
  caseInsensitiveNames: true,
  scalar: [...OPERATORS, ...SCALAR],
  aggregate: AGGREGATES,
  window: WINDOW,
  table: ['range', 'generate_series', 'unnest', 'json_each', 'json_tree'],
  knownHazards: [
    ['read_*', 'reads files or URLs'],
    ['glob', 'lists files'],
    ['sniff_csv', 'reads files'],
    ['arrow_scan*', 'reads memory by address'],
    ['seq_scan', 'reads a table by a name held in a string'],
    ['parquet_*', 'reads files'],
    ['iceberg_*', 'reads files or URLs'],
    ['delta_*', 'reads files or URLs'],
    ['sqlite_*', 'reads files'],
    ['postgres_*', 'reads other databases'],
    ['mysql_*', 'reads other databases'],
    ['http*', 'reads URLs'],
    ['query', 'runs the SQL held in a string argument'],
    ['query_table', 'reads a table by a name held in a string'],
    ['json_execute_serialized_sql', 'runs SQL held in a string'],
    ['json_serialize_plan', 'binds the SQL held in a string, which can read files'],
    ['getenv', SETTINGS],
    ['current_setting', SETTINGS],
    ['which_secret', SETTINGS],
    ['getvariable', SETTINGS],
    ['duckdb_*', 'reads engine metadata and settings'],
    ['pragma_*', 'reads engine metadata and settings'],
    ['nextval', 'advances a sequence'],
    ['currval', 'reads session sequence state'],
    ['setseed', "changes the session's random seed"],
    ['sleep_ms', 'sleeps, holding a connection'],
    ['pg_sleep', 'sleeps, holding a connection'],
    ['write_log', 'writes to the engine log'],
    ['checkpoint', 'writes the database file'],
    ['force_checkpoint', 'writes the database file'],
    ['enable_*', 'changes engine settings'],
    ['disable_*', 'changes engine settings'],
  ],
};
