import type { Command } from 'commander';
import { register as registerApi } from './api.js';
import { register as registerApiKey } from './api-key.js';
import { register as registerCompact } from './compact.js';
import { register as registerDemo } from './demo.js';
import { register as registerDemoData } from './demo-data.js';
import { register as registerEstimate } from './estimate.js';
import { register as registerEval } from './eval.js';
import { register as registerFleet } from './fleet.js';
import { register as registerIndexSchema } from './index-schema.js';
import { register as registerLlmSimulator } from './llm-simulator.js';
import { register as registerPack } from './pack.js';
import { register as registerPacks } from './packs.js';
import { register as registerQuery } from './query.js';
import { register as registerReport } from './report.js';
import { register as registerRun } from './run.js';
import { register as registerRuns } from './runs.js';
import { register as registerWorker } from './worker.js';

/** Each command module exports `register(program)`. One line per command; keep alphabetical. */
const registrations: Array<(program: Command) => void> = [
  registerApi,
  registerApiKey,
  registerCompact,
  registerDemo,
  registerDemoData,
  registerEstimate,
  registerEval,
  registerFleet,
  registerIndexSchema,
  registerLlmSimulator,
  registerPack,
  registerPacks,
  registerQuery,
  registerReport,
  registerRun,
  registerRuns,
  registerWorker,
];

export function registerCommands(program: Command): void {
  for (const register of registrations) register(program);
}
