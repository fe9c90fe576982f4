/** `assay verify`: check claims in the claim schema (docs/claims.md) against a warehouse, one exit code per verdict. */
import type { Command } from 'commander';
import type { Claim } from '../../domain/index.js';
import { ERROR_MAPPING, ValidationError } from '../../errors/index.js';
import type { ClaimVerdictStatus, ClaimVerification } from '../../discovery/claims/verify-claims.js';
import { printJson } from '../output.js';

/**
 * The process exit code of `assay verify`: the weakest verdict among the claims decides it (error,
 * then rejected, unverified, adjusted, confirmed). 10–12 are free in the error table
 * (src/errors: 1–7, 69, 75, 77, 78, 130); a recount whose statement failed exits as a warehouse error.
 */
export const VERDICT_EXIT_CODES: Readonly<Record<ClaimVerdictStatus, number>> = {
  confirmed: 0,
  adjusted: 10,
  rejected: 11,
  unverified: 12,
  error: ERROR_MAPPING.warehouse.exitCode,
};

interface VerifyCommandOptions {
  warehouse?: string;
  claim: string;
  json?: boolean;
  minSupport?: string;
}

function parseMinSupport(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new ValidationError(`--min-support must be a positive integer (got ${JSON.stringify(value)})`, [
      { path: 'min-support', message: 'a positive integer' },
    ]);
  return parsed;
}

async function readInput(source: string): Promise<string> {
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString('utf8');
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    throw new ValidationError(`cannot read the claim file ${source}: ${(error as Error).message}`, [
      { path: 'claim', message: 'an unreadable file' },
    ]);
  }
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${source === '-' ? 'standard input' : source} is not JSON: ${(error as Error).message}`, [
      { path: '', message: 'not JSON' },
    ]);
  }
}

/** One verdict for a person: the claim in words, the recount beside what was claimed, the test, the reasoning and the SQL. */
async function renderVerdict(verdict: ClaimVerification, index: number, count: number): Promise<string> {
  const { formatMetricValue, renderClaim } = await import('../../discovery/claims/claim-text.js');
  const claim: Claim = verdict.claim;
  const show = (value: number | null) => (value === null ? 'nothing' : formatMetricValue(claim, value));
  const lines = [
    `${count > 1 ? `claim ${index + 1} of ${count}: ` : ''}${verdict.status.toUpperCase()}`,
    `  claim      ${renderClaim(claim).title}`,
  ];
  const { recount } = verdict;
  if (recount) {
    lines.push(
      `  recount    ${show(recount.value)} vs ${show(recount.comparison_value)} (claimed ${show(claim.value)} vs ${show(claim.comparison_value)})`,
      `  test       ${recount.test ? `${recount.test.name} = ${recount.test.statistic.toPrecision(4)}, ${recount.test.p_value < 0.001 ? 'p < 0.001' : `p = ${recount.test.p_value.toPrecision(3)}`}` : 'none applies'}`,
      `  n          ${recount.n.toLocaleString('en-US')} behind the value, ${recount.comparison_n.toLocaleString('en-US')} behind the comparison`,
    );
  }
  if (verdict.restated) lines.push(`  restated   ${verdict.restated.title}`);
  lines.push(`  reasoning  ${verdict.reasoning}`);
  if (verdict.sql) lines.push('  sql', ...verdict.sql.split('\n').map((line) => `    ${line}`));
  return lines.join('\n');
}

export function register(program: Command): void {
  program
    .command('verify')
    .description(
      "check claims (docs/claims.md) against a warehouse with the verifier's own SQL: confirmed, adjusted, rejected or unverified",
    )
    .requiredOption(
      '--claim <file>',
      'a JSON file with one claim, an array of claims or {"claims": [...]} (at most 50); - reads standard input',
    )
    .option('-w, --warehouse <url>', 'warehouse URL (duckdb:file.duckdb, postgres://…); default: the configured warehouse')
    .option('--json', 'print the verdict as JSON: one object for one claim, an array for a list')
    .option('--min-support <n>', 'rows a segment needs; default: the configured mining.minSupport')
    .addHelpText(
      'after',
      `\nExit codes (the weakest verdict among the claims decides):\n  0   every claim confirmed\n  10  adjusted: direction and significance hold, a number is off (the recount restates it)\n  11  rejected: the direction fails, the difference is not significant, the segment is empty or the claim names what the warehouse lacks\n  12  unverified: no test applies to the claim\n  2   the input is not JSON or not a claim in the schema (the message names each field's path)\n  4   the warehouse failed (a recount statement or the catalog)\n\nExamples:\n  assay verify --warehouse duckdb:shop.duckdb --claim claim.json\n  cat claims.json | assay verify --warehouse duckdb:shop.duckdb --claim - --json`,
    )
    .action(async (options: VerifyCommandOptions, command: Command) => {
      const [{ cliConfig }, { openWarehouse }, claims] = await Promise.all([
        import('../context.js'),
        import('../../warehouse/index.js'),
        import('../../discovery/claims/verify-claims.js'),
      ]);
      const config = cliConfig(command);
      const minSupport = parseMinSupport(options.minSupport) ?? config.mining.minSupport;
      // the input is checked before anything is opened: a bad claim needs no warehouse to be refused
      const { claims: read, list } = claims.readClaims(parseJson(await readInput(options.claim), options.claim));
      const url = options.warehouse ?? config.warehouse;
      const warehouse = await openWarehouse(url, {
        files: url === config.warehouse ? config.warehouseFiles : {},
        maxRows: config.sql.maxRows,
        timeoutMs: config.sql.timeoutMs,
        maxStoredBytes: config.sql.maxStoredBytes,
      });
      try {
        const tables = await claims.describeClaimTables(warehouse);
        const verdicts = await claims.verifyClaims({ warehouse, tables, claims: read, minSupport, timeoutMs: config.sql.timeoutMs });
        if (options.json === true) printJson(list ? verdicts : verdicts[0]);
        else {
          const blocks = await Promise.all(verdicts.map((verdict, index) => renderVerdict(verdict, index, verdicts.length)));
          process.stdout.write(`${blocks.join('\n\n')}\n`);
        }
        process.exitCode = VERDICT_EXIT_CODES[claims.weakestStatus(verdicts.map((verdict) => verdict.status))];
      } finally {
        await warehouse.close();
      }
    });
}
