// dev only: mine one flag/table JSON and print the top findings
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadInsightBenchFlag } from '/work/main/src/eval/insightbench/flag.js';
import { buildFlagWarehouse } from '/work/main/src/eval/insightbench/warehouse.js';
import { openWarehouse } from '/work/main/src/warehouse/index.js';
import { createLocalEmbedder } from '/work/main/src/embed/local.js';
import { mineWarehouse, DEFAULT_MINING_SETTINGS } from '/work/main/src/discovery/mining/mine.js';

const path = process.argv[2] as string;
const top = Number(process.argv[3] ?? 15);
const duck = path.endsWith('.duckdb');
const flag = duck ? { name: path, goal: process.argv[4] ?? '', datasetDescription: '', tables: [] } : loadInsightBenchFlag(path);
const dir = mkdtempSync(join(tmpdir(), 'mine-dev-'));
const file = duck ? path : join(dir, 'w.duckdb');
if (!duck) await buildFlagWarehouse(file, (flag as any).tables);
const warehouse = await openWarehouse(`duckdb:${file}`);
const tables = await warehouse.describeCatalog!();
const { loadPack } = await import('/work/main/src/discovery/packs/pack-loader.js');
const { packVocabulary } = await import('/work/main/src/discovery/mining/pack-vocabulary.js');
const vocabulary = process.env.PACK ? packVocabulary(loadPack(process.env.PACK).mining, tables) : { nouns: {}, labels: {}, outcomes: [] };
const started = Date.now();
const outcome = await mineWarehouse({ warehouse, embedder: createLocalEmbedder(), tables, goal: flag.goal, description: flag.datasetDescription, nouns: vocabulary.nouns, labels: vocabulary.labels, outcomes: vocabulary.outcomes, settings: DEFAULT_MINING_SETTINGS });
console.log(`${flag.name}: ${Date.now() - started} ms, ${outcome.queries.length} queries, tested ${outcome.tested}, significant ${outcome.significant}, kept ${outcome.findings.length}`);
console.log('GOAL', flag.goal);
for (const note of outcome.notes) console.log('NOTE', note);
for (const q of outcome.queries.filter((q) => q.error)) console.log('ERR', q.label, q.error?.slice(0, 300));
for (const f of outcome.findings.slice(0, top)) console.log(`${f.id} ${f.kind} s=${f.score.toFixed(3)} str=${f.strength.toFixed(2)} rel=${f.relevance.toFixed(2)} q=${f.claim.test?.q_value?.toExponential(1)} | ${f.statement}`);
await warehouse.close();
// key facts: which findings state them (by rendered text)
import { readFileSync } from 'node:fs';
import { renderClaim } from '/work/main/src/discovery/claims/claim-text.js';
const id = /table-(\d+)/.exec(path)?.[1];
if (id) {
  const facts = JSON.parse(readFileSync('/work/shared/data/tables/key-facts.json', 'utf8')).flags[id];
  for (const [name, groups] of Object.entries(facts.facts as Record<string, string[][]>)) {
    const hits = outcome.findings.filter((f) => { const t = `${renderClaim(f.claim).title} :: ${renderClaim(f.claim).description}`.toLowerCase(); return groups.every((g) => g.some((p) => new RegExp(p, 'i').test(t))); });
    console.log(`FACT ${name}: ${hits.map((f) => f.id).join(', ') || 'none'}`);
  }
}
