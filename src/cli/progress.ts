/** Run progress for humans: one live status line in a TTY, plain lines otherwise. */
import type { RunnerEvent } from '../fleet/local/runner.js';
import type { RunStore } from '../store/port.js';

export interface ProgressDisplay {
  onEvent(event: RunnerEvent): void;
  /** A line for the person watching (shown even with --quiet: it says what happens to their run). */
  notice(line: string): void;
  /** Refreshes tokens and cost from the run document. */
  refresh(): Promise<void>;
  stop(): void;
}

/** Cents once it is worth cents; below that, "<$0.01" rather than a string of zeros. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

function formatTokens(tokens: number): string {
  return tokens >= 1_000_000 ? `${(tokens / 1_000_000).toFixed(2)}M` : tokens >= 1_000 ? `${(tokens / 1_000).toFixed(1)}k` : String(tokens);
}

export function createProgressDisplay(options: {
  store: RunStore;
  runId: string;
  stream?: NodeJS.WriteStream;
  quiet?: boolean;
}): ProgressDisplay {
  const stream = options.stream ?? process.stderr;
  const live = stream.isTTY === true && !options.quiet;
  let phase = 'prepare';
  let stepLine = '';
  let usage = '';
  let timer: NodeJS.Timeout | undefined;

  const draw = () => {
    if (!live) return;
    const line = `  ${phase}${stepLine ? ` · ${stepLine}` : ''}${usage ? ` · ${usage}` : ''}`;
    stream.write(`\r\x1b[2K${line.slice(0, (stream.columns ?? 100) - 1)}`);
  };
  const say = (line: string) => {
    if (options.quiet) return;
    if (live) stream.write('\r\x1b[2K');
    stream.write(`${line}\n`);
    draw();
  };

  const display: ProgressDisplay = {
    onEvent(event) {
      switch (event.type) {
        case 'phase':
          phase = event.phase;
          if (!live) say(`[${event.phase}] ${event.detail}`);
          break;
        case 'step':
          stepLine = `step ${event.step}/${event.maxSteps} ${event.action}`;
          if (!live || event.error)
            say(`  step ${event.step}/${event.maxSteps}: ${event.action}${event.error ? ` (${event.error.slice(0, 120)})` : ''}`);
          break;
        case 'area':
          say(
            event.status === 'skipped'
              ? `  area ${event.areaId}: skipped (${event.error ?? 'no relevant exploration step'})`
              : `  area ${event.areaId}: ${event.status}, ${event.insights} insight(s)${event.error ? ` — ${event.error.slice(0, 160)}` : ''}`,
          );
          break;
        case 'verified':
          if (!live) say(`  verified ${event.insightId}: ${event.status}`);
          break;
        case 'done':
          phase = 'done';
          break;
      }
      draw();
    },
    notice(line) {
      if (live) stream.write('\r\x1b[2K');
      stream.write(`${line}\n`);
      draw();
    },
    async refresh() {
      const run = await options.store.getRun(options.runId);
      if (!run) return;
      const calls = run.telemetry.llm_calls;
      const tokens = calls.reduce(
        (sum, call) => sum + (call.prompt_tokens_reported ?? call.prompt_tokens_estimated) + call.output_tokens,
        0,
      );
      const cost = calls.reduce((sum, call) => sum + call.cost_usd, 0);
      // an offline or unpriced model costs nothing worth a column of zeros
      usage = `${formatTokens(tokens)} tokens${cost > 0 ? ` · ${formatUsd(cost)}` : ''}`;
      draw();
    },
    stop() {
      if (timer) clearInterval(timer);
      if (live) stream.write('\r\x1b[2K');
    },
  };
  if (live) {
    timer = setInterval(() => void display.refresh(), 500);
    timer.unref();
  }
  return display;
}
