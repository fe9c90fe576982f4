/** Helpers shared by CLI commands: config from the global --config flag, a logger, table output. */
import type { Command } from 'commander';
import Table from 'cli-table3';
import { loadConfig, type AssayConfig } from '../config/index.js';
import { createLogger, type Logger } from '../logging/index.js';

export function cliConfig(command: Command, overrides?: Record<string, unknown>): AssayConfig {
  const root = command.optsWithGlobals<{ config?: string }>();
  return loadConfig({ file: root.config, overrides });
}

export function cliLogger(config: AssayConfig): Logger {
  return createLogger({ level: config.logLevel, format: config.logFormat });
}

/** Render rows as a boxed table for humans. */
export function renderTable(head: string[], rows: Array<Array<string | number | boolean | null | undefined>>): string {
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))));
  return table.toString();
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
