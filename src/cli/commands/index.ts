import type { Command } from 'commander';

/** Each command module exports `register(program)`. One line per command; keep alphabetical. */
const registrations: Array<(program: Command) => void> = [];

export function registerCommands(program: Command): void {
  for (const register of registrations) register(program);
}
