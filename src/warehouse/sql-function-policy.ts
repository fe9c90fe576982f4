/**
 * Which functions agent SQL may call, per dialect. Table functions are allow-listed (a FROM-clause
 * function is how engines read files, URLs and other databases); scalar functions are deny-listed
 * by exact name and by prefix (files, network, sequences, settings, sleeping, signalling backends,
 * executing SQL held in a string).
 */
import type { SqlDialect } from './dialect.js';

export type { SqlDialect };

export interface FunctionPolicy {
  /** Functions allowed in FROM. Everything else there is refused. */
  tableFunctions: ReadonlySet<string>;
  deniedFunctions: ReadonlyMap<string, string>;
  deniedPrefixes: ReadonlyArray<readonly [prefix: string, why: string]>;
}

const READS_FILES = 'reads files';
const READS_NETWORK = 'reads other databases or the network';
const EXECUTES_SQL = 'executes SQL held in a string';
const SIDE_EFFECTS = 'has side effects';
const READS_ENVIRONMENT = 'reads the server environment or settings';

const DUCKDB_POLICY: FunctionPolicy = {
  tableFunctions: new Set(['range', 'generate_series', 'unnest']),
  deniedFunctions: new Map([
    ['read_csv', READS_FILES],
    ['read_csv_auto', READS_FILES],
    ['read_parquet', READS_FILES],
    ['parquet_scan', READS_FILES],
    ['read_text', READS_FILES],
    ['read_blob', READS_FILES],
    ['glob', READS_FILES],
    ['sniff_csv', READS_FILES],
    ['iceberg_scan', READS_FILES],
    ['delta_scan', READS_FILES],
    ['postgres_scan', READS_NETWORK],
    ['postgres_query', READS_NETWORK],
    ['sqlite_scan', READS_FILES],
    ['mysql_query', READS_NETWORK],
    ['query', EXECUTES_SQL],
    ['query_table', EXECUTES_SQL],
    ['json_execute_serialized_sql', EXECUTES_SQL],
    ['getenv', READS_ENVIRONMENT],
    ['which_secret', READS_ENVIRONMENT],
    ['nextval', SIDE_EFFECTS],
    ['currval', SIDE_EFFECTS],
    ['setseed', SIDE_EFFECTS],
  ]),
  deniedPrefixes: [
    ['read_', READS_FILES],
    ['parquet_', READS_FILES],
    ['iceberg_', READS_FILES],
    ['delta_', READS_FILES],
    ['sqlite_', READS_FILES],
    ['postgres_', READS_NETWORK],
    ['mysql_', READS_NETWORK],
    ['http', READS_NETWORK],
    ['duckdb_', READS_ENVIRONMENT],
  ],
};

const POSTGRES_POLICY: FunctionPolicy = {
  tableFunctions: new Set([
    'generate_series',
    'generate_subscripts',
    'unnest',
    'regexp_matches',
    'regexp_split_to_table',
    'string_to_table',
    'json_each',
    'json_each_text',
    'jsonb_each',
    'jsonb_each_text',
    'json_array_elements',
    'json_array_elements_text',
    'jsonb_array_elements',
    'jsonb_array_elements_text',
    'json_to_record',
    'json_to_recordset',
    'jsonb_to_record',
    'jsonb_to_recordset',
    'json_object_keys',
    'jsonb_object_keys',
    'jsonb_path_query',
  ]),
  deniedFunctions: new Map([
    ['pg_read_file', READS_FILES],
    ['pg_read_binary_file', READS_FILES],
    ['pg_stat_file', READS_FILES],
    ['pg_sleep', SIDE_EFFECTS],
    ['pg_sleep_for', SIDE_EFFECTS],
    ['pg_sleep_until', SIDE_EFFECTS],
    ['set_config', SIDE_EFFECTS],
    ['nextval', SIDE_EFFECTS],
    ['setval', SIDE_EFFECTS],
    ['pg_terminate_backend', SIDE_EFFECTS],
    ['pg_cancel_backend', SIDE_EFFECTS],
    ['pg_reload_conf', SIDE_EFFECTS],
    ['pg_rotate_logfile', SIDE_EFFECTS],
    ['pg_promote', SIDE_EFFECTS],
    ['pg_switch_wal', SIDE_EFFECTS],
    ['pg_notify', SIDE_EFFECTS],
    ['pg_current_xact_id', SIDE_EFFECTS],
    ['pg_log_backend_memory_contexts', SIDE_EFFECTS],
    ['pg_import_system_collations', SIDE_EFFECTS],
    ['pg_create_restore_point', SIDE_EFFECTS],
    ['query_to_xml', EXECUTES_SQL],
    ['query_to_xmlschema', EXECUTES_SQL],
    ['query_to_xml_and_xmlschema', EXECUTES_SQL],
    ['cursor_to_xml', EXECUTES_SQL],
    ['cursor_to_xmlschema', EXECUTES_SQL],
  ]),
  deniedPrefixes: [
    ['pg_ls_', READS_FILES],
    ['pg_read_', READS_FILES],
    ['pg_file_', READS_FILES],
    ['lo_', READS_FILES],
    ['dblink', READS_NETWORK],
    ['pg_advisory', SIDE_EFFECTS],
    ['pg_try_advisory', SIDE_EFFECTS],
    ['txid_', SIDE_EFFECTS],
    ['pg_replication_', SIDE_EFFECTS],
    ['pg_logical_', SIDE_EFFECTS],
    ['pg_create_', SIDE_EFFECTS],
    ['pg_drop_', SIDE_EFFECTS],
    ['pg_copy_', SIDE_EFFECTS],
    ['pg_backup_', SIDE_EFFECTS],
    ['pg_stat_reset', SIDE_EFFECTS],
    ['pg_wal_replay_', SIDE_EFFECTS],
    ['table_to_xml', EXECUTES_SQL],
    ['schema_to_xml', EXECUTES_SQL],
    ['database_to_xml', EXECUTES_SQL],
  ],
};

export function functionPolicyFor(dialect: 'duckdb' | 'postgres'): FunctionPolicy {
  return dialect === 'duckdb' ? DUCKDB_POLICY : POSTGRES_POLICY;
}

/** Why a scalar (or aggregate/window) function may not be called, or undefined when it may. */
export function deniedFunctionReason(policy: FunctionPolicy, functionName: string): string | undefined {
  const name = functionName.toLowerCase();
  const exact = policy.deniedFunctions.get(name);
  if (exact !== undefined) return `function ${name} ${exact}`;
  for (const [prefix, why] of policy.deniedPrefixes) if (name.startsWith(prefix)) return `function ${name} ${why}`;
  return undefined;
}

/** Why a FROM-clause function may not be used, or undefined when it may. */
export function deniedTableFunctionReason(policy: FunctionPolicy, functionName: string): string | undefined {
  const name = functionName.toLowerCase();
  const denied = deniedFunctionReason(policy, name);
  if (denied !== undefined) return denied;
  if (!policy.tableFunctions.has(name)) {
    return `table function ${name} is not on the allow-list (${[...policy.tableFunctions].join(', ')})`;
  }
  return undefined;
}
