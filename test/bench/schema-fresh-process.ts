/**
 * One schema discovery in a process of its own (spawned by the schema bench): opens the warehouse URL
 * given as the only argument, runs `discoverSchema` once, and prints one JSON line with the time it
 * took (opening included), the tables found and the process's peak resident set size.
 */
import { discoverSchema } from '../../src/schema/schema-discovery.js';
import { openWarehouse } from '../../src/warehouse/index.js';

const url = process.argv[2];
if (url === undefined || url === '') {
  process.stderr.write('usage: schema-fresh-process.ts <warehouse url>\n');
  process.exit(2);
}
const started = process.hrtime.bigint();
const warehouse = await openWarehouse(url);
try {
  const tables = await discoverSchema(warehouse);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stdout.write(`${JSON.stringify({ ms, tables: tables.length, max_rss_bytes: process.resourceUsage().maxRSS * 1024 })}\n`);
} finally {
  await warehouse.close();
}
