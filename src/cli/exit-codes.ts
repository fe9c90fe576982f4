/**
 * The exit codes of `assay`, as the help and the README list them. Light to import (every command's
 * help shows it): the numbers come from the one error-code table, `ERROR_MAPPING`.
 */
import { ERROR_MAPPING } from '../errors/index.js';

const EXIT_CODE_MEANINGS: ReadonlyArray<[number, string]> = [
  [0, 'done'],
  [1, 'the run failed (its report says why), or an unexpected error'],
  [ERROR_MAPPING.validation.exitCode, 'a bad argument or input (the message names it)'],
  [ERROR_MAPPING.unsafe_sql.exitCode, 'SQL refused as unsafe (nothing was executed)'],
  [ERROR_MAPPING.warehouse.exitCode, 'the warehouse failed a statement or could not be reached'],
  [ERROR_MAPPING.llm.exitCode, 'the model provider failed'],
  [ERROR_MAPPING.not_found.exitCode, 'a run, project or file does not exist'],
  [ERROR_MAPPING.conflict.exitCode, 'a conflict, e.g. the project already has a run in progress'],
  [ERROR_MAPPING.unavailable.exitCode, 'a service it needs (Redis, the store) is unreachable'],
  [ERROR_MAPPING.config.exitCode, 'a setting, a pack or the configuration is invalid'],
  [129, 'stopped by SIGHUP'],
  [130, 'stopped by SIGINT (ctrl-C); a run is cancelled cleanly and can be resumed'],
  [143, 'stopped by SIGTERM; as for 130'],
];

export const EXIT_CODES_HELP = `Exit codes:\n${EXIT_CODE_MEANINGS.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n')}`;
