/**
 * What a command's action needs from the global flags: the config (from `--config`) and a logger
 * (`--log-file`, `--log-format`). Heavy (zod, yaml, pino): command modules load it inside their
 * actions, never at registration.
 */
import type { Command } from 'commander';
import { loadConfig, type AssayConfig } from '../config/index.js';
import { createLogger, type Logger } from '../logging/index.js';

export { printJson, renderTable } from './output.js';

interface GlobalOptions {
  config?: string;
  logFile?: string;
  logFormat?: 'text' | 'json';
}

export function cliConfig(command: Command, overrides?: Record<string, unknown>): AssayConfig {
  const root = command.optsWithGlobals<GlobalOptions>();
  return loadConfig({ file: root.config, overrides });
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * The command's logger. `human` commands (run, demo, eval, runs, …) print what they did on stdout and
 * keep stderr for what went wrong: their console log starts at `warn`, one readable line per entry,
 * unless LOG_LEVEL says otherwise. `server` commands (api, worker) log at the configured level. Either
 * way `--log-file FILE` sends every entry there as JSON lines instead, and JSON reaches the console
 * only when asked (`--log-format json` or ASSAY_LOG_FORMAT=json).
 */
export function cliLogger(config: AssayConfig, command: Command, mode: 'human' | 'server' = 'human'): Logger {
  const root = command.optsWithGlobals<GlobalOptions>();
  if (root.logFile !== undefined) return createLogger({ level: config.logLevel, file: root.logFile });
  const format = root.logFormat ?? (config.logFormat === 'json' ? 'json' : 'text');
  const floor = mode === 'human' && process.env.LOG_LEVEL === undefined ? 'warn' : config.logLevel;
  const level = LEVELS[Math.max(LEVELS.indexOf(config.logLevel), LEVELS.indexOf(floor))] ?? config.logLevel;
  return createLogger({ level, format });
}
