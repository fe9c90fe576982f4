/**
 * The table catalogue of the ERP demo: ~1,500 names across business schemas, the way a
 * long-lived ERP warehouse accumulates them (abbreviations, staging copies, history tables,
 * backups and yearly archives). Pure: the names depend on nothing but these lists.
 */

/** How a filler table's columns look; each shape has one column template in erp.ts. */
export type ErpTableShape = 'master' | 'document' | 'line' | 'log' | 'mapping';

export interface ErpEntity {
  schema: string;
  name: string;
  shape: ErpTableShape;
}

export interface ErpFillerTable {
  schema: string;
  name: string;
  shape: ErpTableShape;
}

/** The total the ERP demo must reach: enough to prove the catalogue and prompt bounds at scale. */
export const ERP_TABLE_COUNT = 1_500;

/** Entities per business schema, as [table name, shape]. */
const ENTITIES_BY_SCHEMA: Record<string, ReadonlyArray<readonly [string, ErpTableShape]>> = {
  finance: [
    ['gl_accounts', 'master'],
    ['gl_entries', 'line'],
    ['cost_centers', 'master'],
    ['fiscal_periods', 'master'],
    ['ap_invoices', 'document'],
    ['ap_inv_lines', 'line'],
    ['ar_invoices', 'document'],
    ['ar_receipts', 'document'],
    ['bank_accts', 'master'],
    ['bank_stmt_lines', 'line'],
    ['fx_rates', 'mapping'],
    ['budgets', 'document'],
    ['budget_lines', 'line'],
    ['tax_codes', 'master'],
    ['ic_transactions', 'document'],
    ['fa_assets', 'master'],
    ['fa_depr_sched', 'line'],
    ['jrnl_batches', 'document'],
    ['pmt_terms', 'master'],
    ['accruals', 'document'],
    ['alloc_rules', 'mapping'],
    ['consol_map', 'mapping'],
    ['vendor_pmts', 'document'],
    ['dunning_runs', 'log'],
  ],
  sales: [
    ['customers', 'master'],
    ['orders', 'document'],
    ['order_lines', 'line'],
    ['sales_reps', 'master'],
    ['cust_addr', 'master'],
    ['price_lists', 'master'],
    ['price_list_items', 'line'],
    ['quotes', 'document'],
    ['quote_lines', 'line'],
    ['territories', 'master'],
    ['disc_schedules', 'mapping'],
    ['rma_headers', 'document'],
    ['rma_lines', 'line'],
    ['commissions', 'line'],
    ['cust_credit_lim', 'master'],
    ['opportunities', 'document'],
    ['contracts', 'document'],
    ['contract_lines', 'line'],
    ['order_holds', 'log'],
    ['cust_hierarchy', 'mapping'],
  ],
  inventory: [
    ['items', 'master'],
    ['warehouses', 'master'],
    ['stock_movements', 'line'],
    ['bins', 'master'],
    ['item_uom', 'mapping'],
    ['lot_numbers', 'master'],
    ['serial_nos', 'master'],
    ['cycle_counts', 'document'],
    ['cycle_count_lines', 'line'],
    ['stock_snapshots', 'line'],
    ['reorder_pts', 'master'],
    ['item_cats', 'master'],
    ['whse_transfers', 'document'],
    ['whse_xfer_lines', 'line'],
    ['stock_adj', 'document'],
    ['item_xref', 'mapping'],
    ['abc_class', 'mapping'],
    ['pick_lists', 'document'],
    ['putaway_log', 'log'],
  ],
  hr: [
    ['employees', 'master'],
    ['departments', 'master'],
    ['positions', 'master'],
    ['payroll_runs', 'document'],
    ['payroll_lines', 'line'],
    ['timesheets', 'document'],
    ['timesheet_lines', 'line'],
    ['leave_requests', 'document'],
    ['benefit_enrol', 'document'],
    ['org_units', 'master'],
    ['job_grades', 'master'],
    ['trainings', 'master'],
    ['perf_reviews', 'document'],
    ['emp_hist', 'log'],
    ['comp_plans', 'mapping'],
    ['emp_certs', 'master'],
  ],
  procurement: [
    ['purchase_orders', 'document'],
    ['po_lines', 'line'],
    ['vendors', 'master'],
    ['vendor_contacts', 'master'],
    ['requisitions', 'document'],
    ['req_lines', 'line'],
    ['rfq_headers', 'document'],
    ['rfq_responses', 'line'],
    ['goods_receipts', 'document'],
    ['gr_lines', 'line'],
    ['vendor_ratings', 'log'],
    ['supply_contracts', 'document'],
    ['approval_log', 'log'],
    ['vendor_items', 'mapping'],
    ['blanket_pos', 'document'],
    ['three_way_match', 'log'],
  ],
  logistics: [
    ['shipments', 'document'],
    ['shipment_lines', 'line'],
    ['carriers', 'master'],
    ['routes', 'master'],
    ['freight_rates', 'mapping'],
    ['delivery_notes', 'document'],
    ['tracking_events', 'log'],
    ['packages', 'master'],
    ['dock_appts', 'document'],
    ['fleet_vehicles', 'master'],
    ['fuel_log', 'log'],
    ['customs_docs', 'document'],
    ['lane_costs', 'mapping'],
    ['pod_scans', 'log'],
  ],
  manufacturing: [
    ['work_orders', 'document'],
    ['wo_operations', 'line'],
    ['bom_headers', 'master'],
    ['bom_lines', 'line'],
    ['routings', 'master'],
    ['work_centers', 'master'],
    ['prod_runs', 'document'],
    ['scrap_reports', 'document'],
    ['qc_inspections', 'document'],
    ['qc_results', 'line'],
    ['machine_downtime', 'log'],
    ['mrp_plan', 'line'],
    ['eng_changes', 'document'],
    ['tooling', 'master'],
  ],
  crm: [
    ['accounts', 'master'],
    ['contacts', 'master'],
    ['leads', 'document'],
    ['activities', 'log'],
    ['campaigns', 'master'],
    ['cases', 'document'],
    ['case_notes', 'log'],
    ['nps_responses', 'line'],
    ['segments', 'mapping'],
    ['email_sends', 'log'],
  ],
  sysadm: [
    ['users', 'master'],
    ['roles', 'master'],
    ['user_roles', 'mapping'],
    ['audit_log', 'log'],
    ['config_params', 'master'],
    ['job_queue', 'log'],
    ['integration_log', 'log'],
    ['number_ranges', 'master'],
    ['sessions_log', 'log'],
    ['report_defs', 'master'],
  ],
};

/** Schemas whose copies of the business tables hold the accumulated variants. */
const STAGING_SCHEMA = 'staging';
const ARCHIVE_SCHEMA = 'archive';
/** Newest first: when the count is reached, the oldest archive years are the ones left out. */
const ARCHIVE_YEARS = [2023, 2022, 2021, 2020, 2019, 2018, 2017, 2016, 2015];
/** In-place leftovers of migrations and maintenance, applied to every entity. */
const IN_PLACE_SUFFIXES = ['_hist', '_bkp', '_old', '_v2'];

export function erpEntities(): ErpEntity[] {
  return Object.entries(ENTITIES_BY_SCHEMA).flatMap(([schema, entities]) => entities.map(([name, shape]) => ({ schema, name, shape })));
}

export function erpSchemas(): string[] {
  return [...Object.keys(ENTITIES_BY_SCHEMA), STAGING_SCHEMA, ARCHIVE_SCHEMA];
}

/**
 * Every table name of the ERP demo except those in `excluded` (the generated big tables and their
 * masters, which erp.ts builds itself), in a fixed order, cut at `count`.
 */
export function erpFillerTables(count: number, excluded: ReadonlySet<string>): ErpFillerTable[] {
  const entities = erpEntities();
  const candidates: ErpFillerTable[] = [
    ...entities.map(({ schema, name, shape }) => ({ schema, name, shape })),
    ...entities.map(({ schema, name, shape }) => ({ schema: STAGING_SCHEMA, name: `stg_${schema}_${name}`, shape })),
    ...IN_PLACE_SUFFIXES.flatMap((suffix) => entities.map(({ schema, name, shape }) => ({ schema, name: `${name}${suffix}`, shape }))),
    ...ARCHIVE_YEARS.flatMap((year) =>
      entities.map(({ schema, name, shape }) => ({ schema: ARCHIVE_SCHEMA, name: `${schema}_${name}_${year}`, shape })),
    ),
  ];
  const fillers = candidates.filter((table) => !excluded.has(`${table.schema}.${table.name}`));
  if (fillers.length < count)
    throw new RangeError(`the ERP catalogue holds ${fillers.length} filler tables, fewer than the ${count} asked for`);
  return fillers.slice(0, count);
}

/**
 * A stable value in [0, 1) from a string (FNV-1a, 32 bits), for choices made while writing DDL
 * (how many rows a filler table gets), where SQL's `hash` is not yet available.
 */
export function stableUnitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 0x1_0000_0000;
}
