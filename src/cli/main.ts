/** The `assay` command: one entry point; each sub-command lives in src/cli/commands/. */
import { Command, CommanderError, Option } from 'commander';
import { describeError, exitCodeFor, AssayError } from '../errors/index.js';
import { registerCommands } from './commands/index.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { endQuietlyWhenReaderCloses, exitWhenWritten } from './exit.js';

export { endQuietlyWhenReaderCloses, exitWhenWritten } from './exit.js';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('assay')
    .description('Autonomous data discovery: explore a SQL warehouse with an LLM, verify insights, write recommendations.')
    .version('0.1.0')
    .option('-c, --config <file>', 'config file (assay.config.json|yaml); default: ./assay.config.* if present')
    .addOption(
      new Option(
        '--log-format <format>',
        'log lines on stderr: one readable line each (text) or pino JSON (json); default: ASSAY_LOG_FORMAT, else text',
      ).choices(['text', 'json']),
    )
    .option('--log-file <file>', 'write every log entry to this file (JSON lines) instead of stderr')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .exitOverride();
  registerCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version exit with code 0 through this path too
      return error.exitCode;
    }
    const code = error instanceof AssayError ? error.code : 'internal';
    process.stderr.write(`assay: ${code === 'internal' ? '' : `[${code}] `}${describeError(error)}\n`);
    if (code === 'internal' && process.env.ASSAY_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return exitCodeFor(error);
  }
}

const invokedDirectly = process.argv[1] && /[\\/]cli[\\/]main\.(ts|js)$/.test(process.argv[1]);
if (invokedDirectly) {
  endQuietlyWhenReaderCloses();
  main(process.argv).then(exitWhenWritten);
}
