/**
 * The PostgreSQL functions agent SQL may call (docs/architecture.md, "Read-only by construction"). Names
 * are as the parser resolves them: unquoted names arrive lower-cased, a quoted name is exact, and a
 * qualified call must name `pg_catalog`. Built from `pg_proc` of PostgreSQL 15 and the functions 16–18
 * added, keeping what an analyst needs and nothing that runs SQL from a string, touches files or the
 * network, or changes session state (locks, notifications, settings, sequences, large objects, signals,
 * statistics). To allow another function, add its name to the group it belongs to; a test checks that
 * every function the engine's own SQL uses is here.
 */
import type { SqlFunctionList } from '../sql-functions.js';

// biome-ignore format: a packed list of names reads better than one name per line
const MATH = [
  'abs', 'cbrt', 'ceil', 'ceiling', 'degrees', 'div', 'erf', 'erfc', 'exp', 'factorial', 'floor', 'gamma', 'gcd', 'lcm', 'lgamma', 'ln',
  'log', 'log10', 'min_scale', 'mod', 'pi', 'pow', 'power', 'radians', 'random', 'random_normal', 'round', 'scale', 'sign', 'sqrt',
  'trim_scale', 'trunc', 'width_bucket', 'acos', 'acosd', 'acosh', 'asin', 'asind', 'asinh', 'atan', 'atan2', 'atan2d', 'atand', 'atanh',
  'cos', 'cosd', 'cosh', 'cot', 'cotd', 'sin', 'sind', 'sinh', 'tan', 'tand', 'tanh', 'num_nulls', 'num_nonnulls',
];

/** Function-call syntax for casts: `int4(x)`, `date(ts)`, `text(n)`. */
// biome-ignore format: a packed list of names reads better than one name per line
const CASTS = [
  'bool', 'bpchar', 'char', 'date', 'float4', 'float8', 'int2', 'int4', 'int8', 'interval', 'numeric', 'text', 'time', 'timestamp',
  'timestamptz', 'timetz', 'varchar', 'uuid',
];

// biome-ignore format: a packed list of names reads better than one name per line
const STRINGS = [
  'ascii', 'bit_length', 'btrim', 'casefold', 'char_length', 'character_length', 'chr', 'concat', 'concat_ws', 'decode', 'encode', 'format',
  'initcap', 'is_normalized', 'left', 'length', 'like_escape', 'lower', 'lpad', 'ltrim', 'md5', 'normalize', 'octet_length', 'overlay',
  'position', 'quote_ident', 'quote_literal', 'quote_nullable', 'repeat', 'replace', 'reverse', 'right', 'rpad', 'rtrim', 'sha224',
  'sha256', 'sha384', 'sha512', 'similar_escape', 'similar_to_escape', 'split_part', 'starts_with', 'string_to_array', 'string_to_table',
  'strpos', 'substr', 'substring', 'to_ascii', 'to_bin', 'to_hex', 'to_oct', 'translate', 'unistr', 'upper',
];

// biome-ignore format: a packed list of names reads better than one name per line
const REGEX = [
  'regexp_count', 'regexp_instr', 'regexp_like', 'regexp_match', 'regexp_matches', 'regexp_replace', 'regexp_split_to_array',
  'regexp_split_to_table', 'regexp_substr',
];

// biome-ignore format: a packed list of names reads better than one name per line
const DATE_TIME = [
  'age', 'clock_timestamp', 'date_add', 'date_bin', 'date_part', 'date_subtract', 'date_trunc', 'extract', 'isfinite', 'justify_days',
  'justify_hours', 'justify_interval', 'make_date', 'make_interval', 'make_time', 'make_timestamp', 'make_timestamptz', 'now', 'overlaps',
  'statement_timestamp', 'timeofday', 'timezone', 'to_char', 'to_date', 'to_number', 'to_timestamp', 'transaction_timestamp',
];

// biome-ignore format: a packed list of names reads better than one name per line
const ARRAYS_AND_RANGES = [
  'array_append', 'array_cat', 'array_dims', 'array_fill', 'array_length', 'array_lower', 'array_ndims', 'array_position',
  'array_positions', 'array_prepend', 'array_remove', 'array_replace', 'array_reverse', 'array_sample', 'array_shuffle', 'array_sort',
  'array_to_string', 'array_upper', 'cardinality', 'trim_array', 'daterange', 'int4range', 'int8range', 'numrange', 'tsrange', 'tstzrange',
  'isempty', 'lower_inc', 'lower_inf', 'upper_inc', 'upper_inf', 'range_merge', 'multirange',
];

// biome-ignore format: a packed list of names reads better than one name per line
const JSON_READING = [
  'array_to_json', 'json_array_length', 'json_build_array', 'json_build_object', 'json_extract_path', 'json_extract_path_text',
  'json_object', 'json_strip_nulls', 'json_typeof', 'jsonb_array_length', 'jsonb_build_array', 'jsonb_build_object', 'jsonb_extract_path',
  'jsonb_extract_path_text', 'jsonb_insert', 'jsonb_object', 'jsonb_path_exists', 'jsonb_path_exists_tz', 'jsonb_path_match',
  'jsonb_path_match_tz', 'jsonb_path_query_array', 'jsonb_path_query_array_tz', 'jsonb_path_query_first', 'jsonb_path_query_first_tz',
  'jsonb_path_query_tz', 'jsonb_pretty', 'jsonb_set', 'jsonb_set_lax', 'jsonb_strip_nulls', 'jsonb_typeof', 'row_to_json', 'to_json',
  'to_jsonb',
];

/** Full-text search over values. Not `ts_stat` or `ts_rewrite`: they run the SQL held in a string argument. */
// biome-ignore format: a packed list of names reads better than one name per line
const FULL_TEXT = [
  'array_to_tsvector', 'get_current_ts_config', 'json_to_tsvector', 'jsonb_to_tsvector', 'numnode', 'phraseto_tsquery', 'plainto_tsquery',
  'querytree', 'setweight', 'strip', 'to_tsquery', 'to_tsvector', 'ts_delete', 'ts_filter', 'ts_headline', 'ts_rank', 'ts_rank_cd',
  'tsvector_to_array', 'websearch_to_tsquery',
];

const NETWORK_VALUES = ['abbrev', 'broadcast', 'family', 'host', 'hostmask', 'masklen', 'netmask', 'network'];

/** Facts about the session that change nothing: who and where the query runs. */
const SESSION_FACTS = ['current_database', 'current_schema', 'current_setting', 'current_user', 'session_user', 'pg_typeof', 'version'];

const OTHER_VALUES = ['gen_random_uuid', 'uuid_extract_timestamp', 'uuid_extract_version', 'uuidv4', 'uuidv7'];

// biome-ignore format: a packed list of names reads better than one name per line
const AGGREGATES = [
  'any_value', 'array_agg', 'avg', 'bit_and', 'bit_or', 'bit_xor', 'bool_and', 'bool_or', 'corr', 'count', 'covar_pop', 'covar_samp',
  'every', 'json_agg', 'json_agg_strict', 'json_object_agg', 'json_object_agg_strict', 'json_object_agg_unique',
  'json_object_agg_unique_strict', 'jsonb_agg', 'jsonb_agg_strict', 'jsonb_object_agg', 'jsonb_object_agg_strict',
  'jsonb_object_agg_unique', 'jsonb_object_agg_unique_strict', 'max', 'min', 'mode', 'percentile_cont', 'percentile_disc', 'range_agg',
  'range_intersect_agg', 'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope', 'regr_sxx', 'regr_sxy',
  'regr_syy', 'stddev', 'stddev_pop', 'stddev_samp', 'string_agg', 'sum', 'var_pop', 'var_samp', 'variance',
];

// biome-ignore format: a packed list of names reads better than one name per line
const WINDOW = [
  'cume_dist', 'dense_rank', 'first_value', 'lag', 'last_value', 'lead', 'nth_value', 'ntile', 'percent_rank', 'rank', 'row_number',
];

// biome-ignore format: a packed list of names reads better than one name per line
const TABLE = [
  'generate_series', 'generate_subscripts', 'unnest', 'regexp_matches', 'regexp_split_to_table', 'string_to_table', 'json_each',
  'json_each_text', 'jsonb_each', 'jsonb_each_text', 'json_array_elements', 'json_array_elements_text', 'jsonb_array_elements',
  'jsonb_array_elements_text', 'json_to_record', 'json_to_recordset', 'jsonb_to_record', 'jsonb_to_recordset', 'json_object_keys',
  'jsonb_object_keys', 'jsonb_path_query',
];

const RUNS_SQL = 'runs the SQL held in a string argument';

export const POSTGRES_FUNCTIONS: SqlFunctionList = {
  dialect: 'postgres',
  engineName: 'PostgreSQL',
  builtinSchemas: ['pg_catalog'],
  builtinCatalogs: [],
  caseInsensitiveNames: false,
  scalar: [
    ...MATH,
    ...CASTS,
    ...STRINGS,
    ...REGEX,
    ...DATE_TIME,
    ...ARRAYS_AND_RANGES,
    ...JSON_READING,
    ...FULL_TEXT,
    ...NETWORK_VALUES,
    ...SESSION_FACTS,
    ...OTHER_VALUES,
  ],
  aggregate: AGGREGATES,
  window: WINDOW,
  table: TABLE,
  knownHazards: [
    ['ts_stat', RUNS_SQL],
    ['ts_rewrite', RUNS_SQL],
    ['query_to_xml*', RUNS_SQL],
    ['cursor_to_xml*', RUNS_SQL],
    ['table_to_xml*', 'reads a whole table by a name held in a string'],
    ['schema_to_xml*', 'reads whole schemas by a name held in a string'],
    ['database_to_xml*', 'reads the whole database'],
    ['pg_sleep*', 'sleeps, holding a connection'],
    ['pg_advisory*', 'takes an advisory lock that can outlive the statement'],
    ['pg_try_advisory*', 'takes an advisory lock that can outlive the statement'],
    ['pg_notify', 'sends a notification to other sessions'],
    ['set_config', 'changes a session setting'],
    ['pg_terminate_backend', "ends another session's connection"],
    ['pg_cancel_backend', "cancels another session's query"],
    ['pg_signal_backend', 'signals another server process'],
    ['pg_reload_conf', 'reloads the server configuration'],
    ['nextval', 'advances a sequence'],
    ['setval', 'sets a sequence'],
    ['currval', 'reads session sequence state'],
    ['lastval', 'reads session sequence state'],
    ['setseed', "changes the session's random seed"],
    ['lo_*', 'works on large objects (server files and storage)'],
    ['pg_stat_reset*', 'resets statistics'],
    ['pg_read_*', 'reads server files'],
    ['pg_ls_*', 'lists server directories'],
    ['pg_stat_file', 'reads server file metadata'],
    ['dblink*', 'connects to other servers'],
    ['txid_*', 'assigns or reads transaction ids'],
    ['pg_current_xact_id*', 'assigns a transaction id'],
  ],
};
