/** Runs the `assay` CLI in-process and captures what it writes, for command tests. */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: readonly string[]): Promise<CliOutcome> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await main(['node', 'assay', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
