/**
 * How a command that drives a run reacts to SIGINT (ctrl-C, or `kill -INT` without a terminal),
 * SIGTERM (`kill`, `timeout`, a container stop) and SIGHUP (the terminal closed): the first one asks
 * the run to stop cleanly; a second one of any kind ends the process at once. The exit code is the
 * shell's convention for death by that signal (128 + its number: 130, 143, 129).
 */
import { constants } from 'node:os';

export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number];

/** 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function exitCodeForSignal(signal: InterruptSignal): number {
  return 128 + constants.signals[signal];
}

/** What a person would call the signal. */
export function describeSignal(signal: InterruptSignal): string {
  if (signal === 'SIGINT') return 'SIGINT (ctrl-C)';
  if (signal === 'SIGHUP') return 'SIGHUP (the terminal closed)';
  return signal;
}

export interface InterruptHandlers {
  /** The first signal: stop the work cleanly. */
  first(signal: InterruptSignal): void;
  /** A second signal while the first is being handled: the process exits with `exitCodeForSignal` right after. */
  again?(signal: InterruptSignal): void;
}

/** Listens until the returned function is called; the listeners replace Node's default of dying at once. */
export function onInterrupt(handlers: InterruptHandlers, exit: (code: number) => never = process.exit): () => void {
  let received: InterruptSignal | undefined;
  const listener = (signal: NodeJS.Signals) => {
    const interrupt = signal as InterruptSignal;
    if (received === undefined) {
      received = interrupt;
      handlers.first(interrupt);
      return;
    }
    handlers.again?.(interrupt);
    exit(exitCodeForSignal(received));
  };
  for (const signal of INTERRUPT_SIGNALS) process.on(signal, listener);
  return () => {
    for (const signal of INTERRUPT_SIGNALS) process.off(signal, listener);
  };
}
