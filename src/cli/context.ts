/**
 * What a command's action needs from the global flags: the config (from `--config`) and a logger.
 * Heavy (zod, yaml, pino): command modules load it inside their actions, never at registration.
 */
import type { Command } from 'commander';
import { loadConfig, type AssayConfig } from '../config/index.js';
import { createLogger, type Logger } from '../logging/index.js';

export { printJson, renderTable } from './output.js';

export function cliConfig(command: Command, overrides?: Record<string, unknown>): AssayConfig {
  const root = command.optsWithGlobals<{ config?: string }>();
  return loadConfig({ file: root.config, overrides });
}

export function cliLogger(config: AssayConfig): Logger {
  return createLogger({ level: config.logLevel, format: config.logFormat });
}
