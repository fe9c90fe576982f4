/**
 * `npm run bench -- prompt-bound`: the per-area analysis prompt on a synthetic ERP-scale run (80 steps,
 * a dozen with 1,000–5,000 rows, 8 areas), built two ways and measured with the same `estimateTokens`:
 * - naive (the seed's "before"): every step whose query, purpose or thinking contains an area keyword as
 *   a case-insensitive substring, rendered as pretty JSON with every row;
 * - Assay: vector rank over the per-run step index (local embedder, embedded index) + keyword floor +
 *   CompactResult digests + the per-area token budget.
 * Writes bench-results/prompt-bound.json.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleAreaQueryResults } from '../../src/compaction/area-query-results.js';
import { compactResult } from '../../src/compaction/compact-result.js';
import { indexStep, searchStepsForArea } from '../../src/compaction/run-step-index.js';
import { ANALYSIS_QUERY_RESULTS_BUDGET_TOKENS, type AnalysisAreaIdentity } from '../../src/compaction/step-picker.js';
import { renderTable } from '../../src/cli/context.js';
import { explorationStepSchema, type Cell, type ExplorationStep, type Row } from '../../src/domain/index.js';
import { createLocalEmbedder } from '../../src/embed/local.js';
import { estimateTokens } from '../../src/llm/tokens.js';
import { createEmbeddedVectorIndex } from '../../src/vector/embedded.js';
import { seededRandom } from '../unit/compaction/fixtures.js';
import { writeBenchResult, type Bench } from './bench.js';

const FAMILY = 'anthropic';
const RUN_ID = 'bench-erp';
/** Stand-in for the analysis prompt around `{{QUERY_RESULTS}}` (instructions, schema notes, output format); the same for both. */
const PROMPT_TEMPLATE = `You are analysing an ERP warehouse. ${'Follow the output format exactly and cite source steps. '.repeat(90)}`;

interface AreaTopic extends AnalysisAreaIdentity {
  purposes: string[];
  sql: string[];
  columns: Array<{ name: string; type: string; value: (row: number, random: () => number) => Cell }>;
}

const pickFrom = <T>(values: readonly T[], random: () => number): T => values[Math.floor(random() * values.length)] as T;
const money = (random: () => number, scale: number): string => (random() * scale).toFixed(2);
const day = (row: number): string => `2024-${String(1 + (row % 12)).padStart(2, '0')}-${String(1 + (row % 28)).padStart(2, '0')}`;

const AREAS: AreaTopic[] = [
  {
    id: 'sales',
    name: 'Sales & Revenue',
    description: 'Revenue trends, order volumes, average order value and top customers by sales',
    keywords: ['revenue', 'sales', 'order', 'invoice'],
    purposes: [
      'Monthly revenue by region',
      'Average order value by sales channel',
      'Top customers by invoiced revenue',
      'Order volume trend by week',
    ],
    sql: [
      "SELECT region, date_trunc('month', order_date) AS month, sum(net_amount) AS revenue FROM sales_orders GROUP BY 1, 2",
      'SELECT channel, avg(net_amount) AS aov FROM sales_orders GROUP BY channel',
      'SELECT customer_id, sum(total) AS invoiced FROM invoices GROUP BY customer_id ORDER BY invoiced DESC',
    ],
    columns: [
      { name: 'order_id', type: 'BIGINT', value: (row) => 500_000 + row },
      { name: 'customer_id', type: 'BIGINT', value: (_, random) => 10_000 + Math.floor(random() * 4000) },
      { name: 'region', type: 'VARCHAR', value: (_, random) => pickFrom(['EMEA', 'NA', 'APAC', 'LATAM'], random) },
      { name: 'order_date', type: 'DATE', value: (row) => day(row) },
      { name: 'net_amount', type: 'DECIMAL(12,2)', value: (_, random) => money(random, 9000) },
      { name: 'channel', type: 'VARCHAR', value: (_, random) => pickFrom(['web', 'edi', 'phone', 'partner'], random) },
      { name: 'status', type: 'VARCHAR', value: (_, random) => pickFrom(['open', 'shipped', 'invoiced', 'cancelled'], random) },
    ],
  },
  {
    id: 'procurement',
    name: 'Procurement & Suppliers',
    description: 'Supplier lead times, purchase order volumes, on-time delivery and price variance',
    keywords: ['supplier', 'purchase', 'procurement', 'lead time'],
    purposes: ['Supplier lead time distribution', 'Purchase order price variance by supplier', 'On-time delivery rate of suppliers'],
    sql: [
      'SELECT supplier_id, avg(received_date - po_date) AS lead_days FROM purchase_orders GROUP BY supplier_id',
      'SELECT supplier_id, sum(invoice_price - po_price) AS variance FROM purchase_order_lines GROUP BY 1',
    ],
    columns: [
      { name: 'po_id', type: 'BIGINT', value: (row) => 90_000 + row },
      { name: 'supplier_id', type: 'BIGINT', value: (_, random) => 300 + Math.floor(random() * 180) },
      { name: 'po_date', type: 'DATE', value: (row) => day(row) },
      { name: 'lead_days', type: 'INTEGER', value: (_, random) => Math.floor(3 + random() * 40) },
      { name: 'po_price', type: 'DECIMAL(12,2)', value: (_, random) => money(random, 2000) },
      { name: 'on_time', type: 'BOOLEAN', value: (_, random) => random() < 0.8 },
    ],
  },
  {
    id: 'inventory',
    name: 'Inventory & Stock',
    description: 'Stock levels, stockouts, inventory turnover and slow-moving items by warehouse',
    keywords: ['inventory', 'stock', 'warehouse', 'stockout'],
    purposes: ['Stockout days per item and warehouse', 'Inventory turnover by product family', 'Slow-moving items with on-hand stock'],
    sql: [
      'SELECT item_id, warehouse_id, count(*) FILTER (WHERE on_hand = 0) AS stockout_days FROM inventory_daily GROUP BY 1, 2',
      'SELECT family, sum(cogs) / avg(on_hand_value) AS turnover FROM inventory_snapshots GROUP BY family',
    ],
    columns: [
      { name: 'item_id', type: 'VARCHAR', value: (_, random) => `SKU-${Math.floor(random() * 20_000)}` },
      { name: 'warehouse_id', type: 'VARCHAR', value: (_, random) => pickFrom(['WH-01', 'WH-02', 'WH-03', 'WH-07'], random) },
      { name: 'on_hand', type: 'INTEGER', value: (_, random) => Math.floor(random() * random() * 900) },
      { name: 'stockout_days', type: 'INTEGER', value: (_, random) => Math.floor(random() * 12) },
      { name: 'snapshot_date', type: 'DATE', value: (row) => day(row) },
    ],
  },
  {
    id: 'production',
    name: 'Production & Manufacturing',
    description: 'Work order throughput, scrap rates, machine downtime and yield',
    keywords: ['production', 'work order', 'scrap', 'yield'],
    purposes: ['Scrap rate by production line', 'Work order cycle time by plant', 'Machine downtime minutes per shift'],
    sql: [
      'SELECT line_id, sum(scrap_qty)::double / sum(produced_qty) AS scrap_rate FROM work_orders GROUP BY line_id',
      'SELECT plant, avg(completed_at - released_at) AS cycle FROM work_orders GROUP BY plant',
    ],
    columns: [
      { name: 'work_order_id', type: 'BIGINT', value: (row) => 700_000 + row },
      { name: 'line_id', type: 'VARCHAR', value: (_, random) => pickFrom(['L1', 'L2', 'L3', 'L4', 'L5'], random) },
      { name: 'produced_qty', type: 'INTEGER', value: (_, random) => Math.floor(50 + random() * 500) },
      { name: 'scrap_qty', type: 'INTEGER', value: (_, random) => Math.floor(random() * 30) },
      { name: 'released_at', type: 'TIMESTAMP', value: (row) => `${day(row)} 06:00:00` },
    ],
  },
  {
    id: 'finance',
    name: 'Receivables & Payables',
    description: 'Overdue invoices, days sales outstanding, payment terms and cash collection',
    keywords: ['payable', 'receivable', 'payment', 'overdue'],
    purposes: [
      'Overdue receivables by ageing bucket',
      'Days sales outstanding by customer segment',
      'Payment terms compliance of suppliers',
    ],
    sql: [
      "SELECT CASE WHEN days_late > 90 THEN '90+' WHEN days_late > 30 THEN '31-90' ELSE '0-30' END AS bucket, sum(open_amount) FROM ar_open_items GROUP BY 1",
      'SELECT segment, avg(paid_date - invoice_date) AS dso FROM ar_payments GROUP BY segment',
    ],
    columns: [
      { name: 'invoice_id', type: 'BIGINT', value: (row) => 3_000_000 + row },
      { name: 'customer_id', type: 'BIGINT', value: (_, random) => 10_000 + Math.floor(random() * 4000) },
      { name: 'open_amount', type: 'DECIMAL(12,2)', value: (_, random) => money(random, 15_000) },
      { name: 'days_late', type: 'INTEGER', value: (_, random) => Math.floor(random() * random() * 180) },
      { name: 'due_date', type: 'DATE', value: (row) => day(row) },
    ],
  },
  {
    id: 'logistics',
    name: 'Logistics & Shipping',
    description: 'Shipment delays, carrier performance, freight cost and delivery times',
    keywords: ['shipment', 'carrier', 'freight', 'delivery'],
    purposes: ['Late shipments by carrier', 'Freight cost per kilogram by lane', 'Delivery time distribution by destination country'],
    sql: [
      'SELECT carrier, count(*) FILTER (WHERE delivered_at > promised_at) AS late FROM shipments GROUP BY carrier',
      'SELECT lane, sum(freight_cost) / sum(weight_kg) AS cost_per_kg FROM shipments GROUP BY lane',
    ],
    columns: [
      { name: 'shipment_id', type: 'BIGINT', value: (row) => 8_000_000 + row },
      { name: 'carrier', type: 'VARCHAR', value: (_, random) => pickFrom(['DHL', 'UPS', 'FedEx', 'DB Schenker', 'Maersk'], random) },
      { name: 'destination', type: 'VARCHAR', value: (_, random) => pickFrom(['DE', 'FR', 'US', 'PL', 'IT', 'ES'], random) },
      { name: 'delay_hours', type: 'DOUBLE', value: (_, random) => Math.round(random() * random() * 9600) / 100 },
      { name: 'freight_cost', type: 'DECIMAL(10,2)', value: (_, random) => money(random, 4000) },
    ],
  },
  {
    id: 'customers',
    name: 'Customer Churn',
    description: 'Customers who stop ordering, retention by segment and reactivation',
    keywords: ['churn', 'retention', 'customer', 'segment'],
    purposes: ['Customers with no order in 180 days', 'Quarterly retention by customer segment', 'Reactivated accounts after a lapse'],
    sql: [
      'SELECT customer_id, max(order_date) AS last_order FROM sales_orders GROUP BY customer_id HAVING max(order_date) < current_date - 180',
      'SELECT segment, quarter, retained::double / active AS retention FROM customer_quarters',
    ],
    columns: [
      { name: 'customer_id', type: 'BIGINT', value: (row) => 10_000 + row },
      { name: 'segment', type: 'VARCHAR', value: (_, random) => pickFrom(['enterprise', 'mid-market', 'smb'], random) },
      { name: 'last_order', type: 'DATE', value: (row) => day(row * 7) },
      { name: 'lifetime_revenue', type: 'DECIMAL(14,2)', value: (_, random) => money(random, 250_000) },
      { name: 'churned', type: 'BOOLEAN', value: (_, random) => random() < 0.22 },
    ],
  },
  {
    id: 'workforce',
    name: 'Workforce & Payroll',
    description: 'Headcount, overtime hours, payroll cost and absenteeism by department',
    keywords: ['employee', 'overtime', 'payroll', 'headcount'],
    purposes: ['Overtime hours per department and month', 'Payroll cost per headcount by plant', 'Absenteeism rate by shift'],
    sql: [
      'SELECT department, month, sum(overtime_hours) FROM timesheets GROUP BY 1, 2',
      'SELECT plant, sum(gross_pay) / count(DISTINCT employee_id) AS cost_per_head FROM payroll GROUP BY plant',
    ],
    columns: [
      { name: 'employee_id', type: 'BIGINT', value: (row) => 40_000 + row },
      {
        name: 'department',
        type: 'VARCHAR',
        value: (_, random) => pickFrom(['assembly', 'warehouse', 'finance', 'sales', 'maintenance'], random),
      },
      { name: 'overtime_hours', type: 'DOUBLE', value: (_, random) => Math.round(random() * random() * 4000) / 100 },
      { name: 'gross_pay', type: 'DECIMAL(10,2)', value: (_, random) => money(random, 8000) },
    ],
  },
];

const STEP_COUNT = 80;
const BIG_STEPS = new Set([3, 9, 14, 18, 25, 31, 38, 44, 52, 59, 66, 73]);
const LOOKUP_STEPS = new Set([1, 2, 11, 27, 48, 70]);
const FAILED_STEPS = new Set([7, 21, 40, 61]);
/** Exploratory thinking drifts across areas, which is what makes substring selection over-select. */
const THINKING = [
  'Revenue looks seasonal; next check whether customer orders dip when stock runs out in the warehouse.',
  'The order table joins to shipments and invoices; payment delays may explain churn in the smb segment.',
  'Looking at work order scrap; supplier lead time could drive production gaps and overtime.',
  'Freight cost per delivery rises with late shipments; check the carrier mix by customer region.',
];

function buildRun(): ExplorationStep[] {
  const random = seededRandom(2024);
  const steps: ExplorationStep[] = [];
  for (let number = 1; number <= STEP_COUNT; number += 1) {
    const area = AREAS[number % AREAS.length] as AreaTopic;
    const base = { run_id: RUN_ID, step: number, timestamp: '2024-06-01T00:00:00Z', thinking: pickFrom(THINKING, random) };
    if (LOOKUP_STEPS.has(number)) {
      steps.push(
        explorationStepSchema.parse({
          ...base,
          action: 'lookup_schema',
          tables: [area.sql[0]?.split(' FROM ')[1]?.split(' ')[0] ?? 'orders'],
          result_text: 'table columns …'.repeat(40),
        }),
      );
      continue;
    }
    const purpose = pickFrom(area.purposes, random);
    const sql = pickFrom(area.sql, random);
    if (FAILED_STEPS.has(number)) {
      steps.push(
        explorationStepSchema.parse({
          ...base,
          action: 'query',
          query_purpose: purpose,
          query: sql,
          executed_query: sql,
          error: 'Binder Error: Referenced column "net_amt" not found',
        }),
      );
      continue;
    }
    const rowCount = BIG_STEPS.has(number) ? 1000 + Math.floor(random() * 4000) : 3 + Math.floor(random() * 60);
    const rows = Array.from(
      { length: rowCount },
      (_, row): Row => Object.fromEntries(area.columns.map((column) => [column.name, column.value(row, random)])),
    );
    const columns = area.columns.map((column) => ({ name: column.name, type: column.type }));
    steps.push(
      explorationStepSchema.parse({
        ...base,
        action: 'query',
        query_purpose: purpose,
        query: sql,
        executed_query: sql,
        row_count: rowCount,
        columns,
        rows,
        // The engine attaches the digest once, at exploration time.
        compact: compactResult(columns, rows),
      }),
    );
  }
  return steps;
}

/** The seed's "before": substring keywords over query + purpose + thinking, full pretty JSON with every row. */
function naiveQueryResults(area: AnalysisAreaIdentity, steps: readonly ExplorationStep[]): { text: string; selected: number } {
  const selected = steps.filter((step) => {
    const text = `${step.query ?? ''} ${step.query_purpose} ${step.thinking}`.toLowerCase();
    return area.keywords.some((keyword) => text.includes(keyword.toLowerCase()));
  });
  const withoutDigest = selected.map(({ compact: _compact, ...rest }) => rest);
  return { text: JSON.stringify(withoutDigest, null, 2), selected: selected.length };
}

interface AreaOutcome {
  area: string;
  naive_tokens: number;
  assay_tokens: number;
  selected: number;
  dropped: number;
  naive_selected: number;
  dropped_reasons: Record<string, number>;
}

export const promptBoundBench: Bench = {
  name: 'prompt-bound',
  description: 'largest per-area analysis prompt on a synthetic ERP run: naive keyword + full JSON vs vector rank + digests + budget',
  async run() {
    const steps = buildRun();
    const directory = await mkdtemp(join(tmpdir(), 'assay-bench-'));
    const embedder = createLocalEmbedder();
    const index = createEmbeddedVectorIndex({ dir: directory });
    try {
      for (const step of steps) await indexStep({ embedder, index, runId: RUN_ID, step });
      const templateTokens = estimateTokens(PROMPT_TEMPLATE, FAMILY);
      const areas: AreaOutcome[] = [];
      for (const area of AREAS) {
        const naive = naiveQueryResults(area, steps);
        const hits = await searchStepsForArea({ embedder, index, runId: RUN_ID, area, stepCount: steps.length });
        const ours = assembleAreaQueryResults({ area, steps, hits, budgetTokens: ANALYSIS_QUERY_RESULTS_BUDGET_TOKENS, family: FAMILY });
        const reasons: Record<string, number> = {};
        for (const dropped of ours.dropped_steps) reasons[dropped.reason] = (reasons[dropped.reason] ?? 0) + 1;
        areas.push({
          area: area.name,
          naive_tokens: templateTokens + estimateTokens(naive.text, FAMILY),
          assay_tokens: templateTokens + ours.tokens,
          selected: ours.selected_steps.length,
          dropped: ours.dropped_steps.length,
          naive_selected: naive.selected,
          dropped_reasons: reasons,
        });
      }
      const result = {
        naive_max_prompt_tokens: Math.max(...areas.map((area) => area.naive_tokens)),
        assay_max_prompt_tokens: Math.max(...areas.map((area) => area.assay_tokens)),
        budget_tokens: ANALYSIS_QUERY_RESULTS_BUDGET_TOKENS,
        steps: steps.length,
        areas,
      };
      const path = writeBenchResult('prompt-bound', result);
      process.stdout.write(
        `${renderTable(
          ['area', 'naive steps', 'naive tokens', 'assay steps', 'dropped (reasons)', 'assay tokens'],
          areas.map((area) => [
            area.area,
            area.naive_selected,
            area.naive_tokens,
            area.selected,
            `${area.dropped} ${JSON.stringify(area.dropped_reasons)}`,
            area.assay_tokens,
          ]),
        )}\n`,
      );
      process.stdout.write(
        `max prompt tokens: naive ${result.naive_max_prompt_tokens}, assay ${result.assay_max_prompt_tokens} (query-results budget ${result.budget_tokens})\nwrote ${path}\n`,
      );
    } finally {
      await index.close();
      await rm(directory, { recursive: true, force: true });
    }
  },
};
