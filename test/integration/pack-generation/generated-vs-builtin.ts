/**
 * Item 7 of issue 15, measured: on a fresh demo warehouse, a full discovery with the offline analyst and
 * the built-in pack, and one with a pack generated for the warehouse (deterministic path), both scored
 * strictly against the planted truths (src/eval/score.ts). Shared by the integration test and by hand:
 * `npx tsx test/integration/pack-generation/generated-vs-builtin.ts ecommerce 24`.
 */
import { join } from 'node:path';
import { writePackDirectory } from '../../../src/cli/commands/pack.js';
import { runDiscovery } from '../../../src/cli/discovery-session.js';
import { composeRuntime } from '../../../src/composition.js';
import { loadConfig } from '../../../src/config/index.js';
import { generatePack, type GeneratedPack } from '../../../src/discovery/packs/generation/index.js';
import { generalPack } from '../../support/packs.js';
import { scoreRun, type EvalScore } from '../../../src/eval/score.js';
import { silentLogger } from '../../../src/logging/index.js';
import { generateDemoWarehouse, readDemoTruths, truthsPathFor } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { tempDir } from '../../support/temp-dir.js';

export type DemoKind = 'ecommerce' | 'gaming' | 'social';

export interface ScoredRun extends EvalScore {
  /** Every mined finding of the run, in words: what discovery had to choose from. */
  findings: string[];
}

export interface PackComparison {
  kind: DemoKind;
  builtIn: ScoredRun;
  generated: ScoredRun;
  pack: GeneratedPack;
}

async function scoredRun(
  workDir: string,
  warehousePath: string,
  kind: DemoKind,
  pack: string,
  label: string,
  maxSteps: number,
): Promise<ScoredRun> {
  const truths = await readDemoTruths(truthsPathFor(warehousePath));
  // one data directory per run: no previous context or feedback from the other run may help or hurt
  const config = loadConfig({
    env: {},
    cwd: workDir,
    overrides: { dataDir: join(workDir, `data-${label}`), warehouse: `duckdb:${warehousePath}`, llm: 'offline:analyst' },
  });
  const outcome = await runDiscovery(
    config,
    {
      projectId: `${label}-${kind}`,
      projectName: `${label} ${kind}`,
      pack,
      maxSteps,
      minSteps: 0,
      outDir: join(workDir, `output-${label}`),
      quiet: true,
    },
    silentLogger,
  );
  const runtime = await composeRuntime(config, { logger: silentLogger });
  const steps = await runtime.store.listSteps(outcome.run.id).finally(() => runtime.close());
  return {
    ...scoreRun(kind, truths.patterns, outcome.result, steps),
    findings: (outcome.run.mining?.findings ?? []).map((finding) => finding.statement),
  };
}

export async function compareGeneratedWithBuiltIn(kind: DemoKind, maxSteps: number): Promise<PackComparison> {
  const workDir = tempDir(`assay-pack-generation-${kind}-`);
  const demo = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}.duckdb`) });
  const warehouse = await openWarehouse(`duckdb:${demo.path}`);
  const pack = await generatePack({ warehouse, slug: `${kind}-generated`, basePack: generalPack() }).finally(() => warehouse.close());
  const packDir = join(workDir, 'generated-pack');
  writePackDirectory(packDir, pack.files, false);
  const builtIn = await scoredRun(workDir, demo.path, kind, kind, 'builtin', maxSteps);
  const generated = await scoredRun(workDir, demo.path, kind, packDir, 'generated', maxSteps);
  return { kind, builtIn, generated, pack };
}

if (process.argv[1]?.endsWith('generated-vs-builtin.ts')) {
  const kinds = (process.argv[2] ? [process.argv[2]] : ['ecommerce', 'gaming', 'social']) as DemoKind[];
  const maxSteps = Number(process.argv[3] ?? 24);
  for (const kind of kinds) {
    const comparison = await compareGeneratedWithBuiltIn(kind, maxSteps);
    const line = (score: EvalScore) =>
      `${score.found}/${score.planted} found (recall ${score.recall}, precision ${score.precision}, insights ${score.insights}, rejected ${score.rejected}) [${score.patterns.map((match) => `${match.pattern.replace(`${kind}-`, '')}:${match.found ? 'Y' : 'n'}`).join(' ')}]`;
    process.stdout.write(
      `${kind}\n  built-in : ${line(comparison.builtIn)}\n  generated: ${line(comparison.generated)}\n  areas    : ${comparison.pack.proposal.areas.map((area) => area.id).join(', ')}\n`,
    );
  }
}
