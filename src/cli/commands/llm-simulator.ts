/** `assay llm-simulator`: serve the wire-compatible LLM simulator until SIGINT/SIGTERM. */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';
import type { SimulatorBrain } from '../../llm/simulator/index.js';

interface SimulatorFlags {
  port: string;
  host: string;
  contextWindow?: string;
  rateLimitEvery?: string;
  retryAfter?: string;
  latencyMs?: string;
  malformedEvery?: string;
  brain: string;
  promptCaching: boolean;
}

/** Brains the command can serve: the offline analyst (answers every Assay prompt kind) or an echo for wire checks. */
const BRAINS = ['analyst', 'echo'] as const;
type BrainName = (typeof BRAINS)[number];

function brainName(name: string): BrainName {
  if ((BRAINS as readonly string[]).includes(name)) return name as BrainName;
  throw new ValidationError(`--brain must be one of ${BRAINS.join(', ')}, got "${name}"`, [{ path: 'brain', message: 'unknown brain' }]);
}

async function brainFor(name: BrainName): Promise<SimulatorBrain> {
  if (name === 'echo') return (await import('../../llm/simulator/index.js')).echoBrain;
  const { createOfflineAnalyst } = await import('../../llm/offline-analyst/index.js');
  const analyst = createOfflineAnalyst();
  return (call) =>
    analyst({ ...(call.system ? { system: call.system } : {}), messages: call.messages, maxOutputTokens: call.maxOutputTokens });
}

function wholeNumber(flag: string, value: string | undefined, minimum: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum) {
    throw new ValidationError(`--${flag} must be a whole number ≥ ${minimum}, got "${value}"`, [
      { path: flag, message: `expected an integer ≥ ${minimum}` },
    ]);
  }
  return parsed;
}

function seconds(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) {
    throw new ValidationError(`--${flag} must be a number of seconds ≥ 0, got "${value}"`, [
      { path: flag, message: 'expected seconds ≥ 0' },
    ]);
  }
  return parsed;
}

export function register(program: Command): void {
  program
    .command('llm-simulator')
    .description('Serve a local LLM simulator speaking the Anthropic, OpenAI and Bedrock (HTTP/1.1 and h2c) APIs on one port')
    .option('--port <port>', 'port to listen on (0 = any free port)', '0')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option(
      '--context-window <tokens>',
      'refuse prompts over this many estimated tokens with the API\'s "prompt too long" error (default 200000)',
    )
    .option('--rate-limit-every <k>', 'answer every k-th completion with 429 and a retry-after cool-down')
    .option('--retry-after <seconds>', 'cool-down sent as retry-after (default 1)')
    .option('--latency-ms <ms>', 'delay before every completion answer')
    .option('--malformed-every <k>', 'replace every k-th reply with prose instead of the requested JSON')
    .option('--no-prompt-caching', 'serve no prompt-cache hits (every request billed as uncached)')
    .option('--brain <name>', `who answers: ${BRAINS.join(' (the offline analyst) or ')} (repeats the prompt)`, 'analyst')
    .action(async (flags: SimulatorFlags) => {
      const settings = {
        port: wholeNumber('port', flags.port, 0),
        host: flags.host,
        contextWindow: wholeNumber('context-window', flags.contextWindow, 1),
        rateLimitEvery: wholeNumber('rate-limit-every', flags.rateLimitEvery, 1),
        retryAfterSeconds: seconds('retry-after', flags.retryAfter),
        latencyMs: wholeNumber('latency-ms', flags.latencyMs, 0),
        malformedEvery: wholeNumber('malformed-every', flags.malformedEvery, 1),
        brain: brainName(flags.brain),
        promptCaching: flags.promptCaching,
      };
      const { startLlmSimulator } = await import('../../llm/simulator/index.js');
      const simulator = await startLlmSimulator({ ...settings, brain: await brainFor(settings.brain) });
      process.stdout.write(`listening on ${simulator.url}\n`);
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      await simulator.close();
      process.stderr.write(`llm-simulator: ${signal}, closed after ${simulator.stats.requests} requests\n`);
    });
}
