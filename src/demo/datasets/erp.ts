/**
 * ERP demo warehouse: 1,500 tables across business, staging and archive schemas. Most are small
 * or empty (they exist to prove the catalogue and prompt bounds at scale); three fact tables have
 * 150k-250k rows at scale 1 and carry three planted patterns (see `patterns`).
 */
import { scaledCount, type DemoDataset } from '../demo-dataset.js';
import type { PlantedPatternSpec } from '../planted-pattern.js';
import { sqlList, sqlLiteral, uniformPickSql, weightedPickSql } from '../random-sql.js';
import { ERP_TABLE_COUNT, erpFillerTables, erpSchemas, stableUnitHash, type ErpFillerTable, type ErpTableShape } from './erp-catalog.js';

const CUSTOMERS_AT_SCALE_1 = 2_000;
const ORDERS_AT_SCALE_1 = 40_000;
const GL_ENTRIES_AT_SCALE_1 = 250_000;
const STOCK_MOVEMENTS_AT_SCALE_1 = 150_000;
const ITEM_COUNT = 3_000;
const GL_ACCOUNT_COUNT = 320;
const COST_CENTER_COUNT = 45;
const REPS_PER_REGION = 10;

/** Tables this module builds with real content; the catalogue fills the rest of the 1,500. */
const GENERATED_TABLES = [
  'finance.gl_accounts',
  'finance.cost_centers',
  'finance.gl_entries',
  'sales.sales_reps',
  'sales.customers',
  'sales.orders',
  'sales.order_lines',
  'inventory.items',
  'inventory.warehouses',
  'inventory.stock_movements',
] as const;

const SALES_REGIONS = ['NA-East', 'NA-West', 'EMEA-North', 'EMEA-South', 'APAC', 'LATAM'] as const;
/** Reps in this region give away far deeper line discounts (planted pattern 1). */
const DISCOUNTING_REGION = 'EMEA-South';
/** The warehouse that writes off stock several times as often as the others (planted pattern 3). */
const WRITE_OFF_WAREHOUSE = { id: 7, code: 'WH-07' } as const;

/** Filler tables: about a third are empty, the rest hold a few dozen rows at most. */
const FILLER_EMPTY_SHARE = 0.35;
const FILLER_MAX_ROWS = 60;
/** Filler DDL is split into statements of this many tables so a failure names a small range. */
const FILLER_TABLES_PER_STATEMENT = 150;

const SHAPE_COLUMNS: Record<ErpTableShape, { ddl: string; select: (salt: string) => string }> = {
  master: {
    ddl: 'id BIGINT, code VARCHAR, descr VARCHAR, status_cd VARCHAR, is_active BOOLEAN, created_dt TIMESTAMP, updated_dt TIMESTAMP, created_by VARCHAR',
    select: (salt) => `i + 1, printf('%s-%05d', upper(substr(${salt}, 1, 3)), i + 1), ${salt} || ' ' || (i + 1),
      ${uniformPickSql(`rnd2(${salt}, i, 1)`, ['A', 'I', 'P'])}, rnd2(${salt}, i, 2) < 0.9,
      TIMESTAMP '2016-01-01' + to_seconds(floor(rnd2(${salt}, i, 3) * 2.5e8)::BIGINT),
      CASE WHEN rnd2(${salt}, i, 4) < 0.4 THEN NULL ELSE TIMESTAMP '2024-01-01' + to_seconds(floor(rnd2(${salt}, i, 4) * 3e7)::BIGINT) END,
      ${uniformPickSql(`rnd2(${salt}, i, 5)`, ['SYSTEM', 'JDOE', 'MKOWALSKI', 'ETL_USER', 'ASMITH'])}`,
  },
  document: {
    ddl: 'doc_id BIGINT, doc_no VARCHAR, doc_dt DATE, company_cd VARCHAR, currency_cd VARCHAR, amount DECIMAL(18,2), status_cd VARCHAR, posted_ts TIMESTAMP, created_by VARCHAR',
    select: (salt) => `i + 1, printf('D%08d', 10000000 + i), DATE '2019-01-01' + floor(rnd2(${salt}, i, 1) * 2190)::INTEGER,
      ${uniformPickSql(`rnd2(${salt}, i, 2)`, ['1000', '2000', '3100'])}, ${uniformPickSql(`rnd2(${salt}, i, 3)`, ['USD', 'EUR', 'GBP'])},
      round(exp(rnd2(${salt}, i, 4) * 10), 2)::DECIMAL(18,2), ${uniformPickSql(`rnd2(${salt}, i, 5)`, ['OPEN', 'POSTED', 'CLOSED', 'VOID'])},
      CASE WHEN rnd2(${salt}, i, 6) < 0.2 THEN NULL ELSE TIMESTAMP '2019-01-01' + to_seconds(floor(rnd2(${salt}, i, 6) * 1.8e8)::BIGINT) END,
      ${uniformPickSql(`rnd2(${salt}, i, 7)`, ['SYSTEM', 'JDOE', 'ETL_USER', 'BATCH01'])}`,
  },
  line: {
    ddl: 'doc_id BIGINT, line_no INTEGER, ref_cd VARCHAR, qty DECIMAL(18,3), uom VARCHAR, unit_amt DECIMAL(18,4), line_amt DECIMAL(18,2)',
    select: (salt) => `1 + i // 4, 1 + i % 4, printf('R%06d', floor(rnd2(${salt}, i, 1) * 999999)::INTEGER),
      (1 + floor(rnd2(${salt}, i, 2) * 40))::DECIMAL(18,3), ${uniformPickSql(`rnd2(${salt}, i, 3)`, ['EA', 'KG', 'BOX', 'HR'])},
      round(1 + rnd2(${salt}, i, 4) * 500, 4)::DECIMAL(18,4), round((1 + floor(rnd2(${salt}, i, 2) * 40)) * (1 + rnd2(${salt}, i, 4) * 500), 2)::DECIMAL(18,2)`,
  },
  log: {
    ddl: 'log_id BIGINT, event_ts TIMESTAMP, event_type VARCHAR, ref_id BIGINT, msg_txt VARCHAR, user_name VARCHAR',
    select: (salt) => `i + 1, TIMESTAMP '2020-01-01' + to_seconds(floor(rnd2(${salt}, i, 1) * 1.5e8)::BIGINT),
      ${uniformPickSql(`rnd2(${salt}, i, 2)`, ['CREATE', 'UPDATE', 'DELETE', 'APPROVE', 'ERROR'])}, floor(rnd2(${salt}, i, 3) * 1e6)::BIGINT,
      CASE WHEN rnd2(${salt}, i, 4) < 0.5 THEN NULL ELSE 'event ' || (i + 1) END, ${uniformPickSql(`rnd2(${salt}, i, 5)`, ['SYSTEM', 'JDOE', 'ETL_USER'])}`,
  },
  mapping: {
    ddl: 'src_cd VARCHAR, tgt_cd VARCHAR, valid_from DATE, valid_to DATE, mapped_by VARCHAR',
    select: (
      salt,
    ) => `printf('S%04d', i + 1), printf('T%04d', floor(rnd2(${salt}, i, 1) * 9999)::INTEGER), DATE '2018-01-01' + floor(rnd2(${salt}, i, 2) * 1500)::INTEGER,
      CASE WHEN rnd2(${salt}, i, 3) < 0.7 THEN NULL ELSE DATE '2023-01-01' + floor(rnd2(${salt}, i, 3) * 700)::INTEGER END, 'ETL_USER'`,
  },
};

function qualified(table: { schema: string; name: string }): string {
  return `${table.schema}.${table.name}`;
}

function fillerRowCount(table: ErpFillerTable, seed: number): number {
  const name = qualified(table);
  if (stableUnitHash(`${seed}:empty:${name}`) < FILLER_EMPTY_SHARE) return 0;
  return 1 + Math.floor(stableUnitHash(`${seed}:rows:${name}`) * FILLER_MAX_ROWS);
}

function fillerTableSql(table: ErpFillerTable, seed: number): string {
  const columns = SHAPE_COLUMNS[table.shape];
  const rows = fillerRowCount(table, seed);
  const create = `CREATE TABLE ${qualified(table)} (${columns.ddl});`;
  return rows === 0
    ? create
    : `${create}\nINSERT INTO ${qualified(table)} SELECT ${columns.select(sqlLiteral(qualified(table)))} FROM range(${rows}) t(i);`;
}

function fillerSql(seed: number): string[] {
  const fillers = erpFillerTables(ERP_TABLE_COUNT - GENERATED_TABLES.length, new Set(GENERATED_TABLES));
  const statements: string[] = [
    erpSchemas()
      .map((schema) => `CREATE SCHEMA IF NOT EXISTS ${schema};`)
      .join('\n'),
  ];
  for (let start = 0; start < fillers.length; start += FILLER_TABLES_PER_STATEMENT) {
    statements.push(
      fillers
        .slice(start, start + FILLER_TABLES_PER_STATEMENT)
        .map((table) => fillerTableSql(table, seed))
        .join('\n'),
    );
  }
  return statements;
}

function mastersSql(customerCount: number): string {
  return `
CREATE TABLE inventory.warehouses (whse_id INTEGER, whse_code VARCHAR, whse_name VARCHAR, country_cd VARCHAR, opened_dt DATE, is_3pl BOOLEAN);
INSERT INTO inventory.warehouses VALUES
  (1, 'WH-01', 'Memphis DC', 'US', DATE '2011-04-01', FALSE), (2, 'WH-02', 'Reno DC', 'US', DATE '2014-09-15', FALSE),
  (3, 'WH-03', 'Columbus DC', 'US', DATE '2016-02-01', TRUE), (4, 'WH-04', 'Toronto DC', 'CA', DATE '2015-06-01', FALSE),
  (5, 'WH-05', 'Venlo DC', 'NL', DATE '2013-03-01', FALSE), (6, 'WH-06', 'Duisburg DC', 'DE', DATE '2017-11-01', TRUE),
  (${WRITE_OFF_WAREHOUSE.id}, '${WRITE_OFF_WAREHOUSE.code}', 'Rotterdam Port DC', 'NL', DATE '2019-05-01', TRUE), (8, 'WH-08', 'Lyon DC', 'FR', DATE '2018-01-15', FALSE),
  (9, 'WH-09', 'Singapore DC', 'SG', DATE '2020-07-01', TRUE), (10, 'WH-10', 'Monterrey DC', 'MX', DATE '2021-10-01', FALSE);

CREATE TABLE inventory.items (
  item_id BIGINT, item_no VARCHAR, item_descr VARCHAR, item_cat VARCHAR, uom VARCHAR, std_cost DECIMAL(14,4),
  list_price DECIMAL(14,2), weight_kg DECIMAL(10,3), is_discontinued BOOLEAN, created_dt DATE);
INSERT INTO inventory.items
SELECT i + 1, printf('ITM-%06d', 100000 + i), cat || ' ' || ${uniformPickSql("rnd('item_noun', i)", ['Bracket', 'Valve', 'Housing', 'Sensor', 'Cable', 'Gasket', 'Panel', 'Motor', 'Filter', 'Bearing'])} || ' ' || (i + 1),
  cat, ${weightedPickSql("rnd('item_uom', i)", [
    ['EA', 0.7],
    ['BOX', 0.15],
    ['KG', 0.1],
    ['M', 0.05],
  ])},
  round(cost, 4)::DECIMAL(14,4), round(cost * (1.3 + rnd('item_markup', i) * 0.9), 2)::DECIMAL(14,2),
  CASE WHEN rnd('item_weight_null', i) < 0.12 THEN NULL ELSE round(0.05 + rnd('item_weight', i) * 40, 3) END::DECIMAL(10,3),
  rnd('item_discontinued', i) < 0.07, DATE '2012-01-01' + floor(rnd('item_created', i) * 4000)::INTEGER
FROM (SELECT i, ${uniformPickSql("rnd('item_cat', i)", ['HYD', 'ELEC', 'MECH', 'PACK', 'CONS', 'SPARE'])} AS cat, 0.5 + exp(rnd('item_cost', i) * 6) AS cost FROM range(${ITEM_COUNT}) t(i))
ORDER BY 1;

CREATE TABLE finance.gl_accounts (acct_no VARCHAR, acct_name VARCHAR, acct_type VARCHAR, normal_bal VARCHAR, is_active BOOLEAN);
INSERT INTO finance.gl_accounts
SELECT (10000 + i * 10)::VARCHAR, acct_type || ' account ' || (i + 1), acct_type,
  CASE WHEN acct_type IN ('ASSET', 'EXPENSE') THEN 'D' ELSE 'C' END, rnd('acct_active', i) < 0.93
FROM (SELECT i, CASE WHEN i < 60 THEN 'ASSET' WHEN i < 110 THEN 'LIABILITY' WHEN i < 130 THEN 'EQUITY' WHEN i < 180 THEN 'REVENUE' ELSE 'EXPENSE' END AS acct_type
      FROM range(${GL_ACCOUNT_COUNT}) t(i))
ORDER BY 1;

CREATE TABLE finance.cost_centers (cc_code VARCHAR, cc_name VARCHAR, dept_code VARCHAR, mgr_emp_id BIGINT, is_active BOOLEAN);
INSERT INTO finance.cost_centers
SELECT 'CC' || (1000 + i * 10), dept || ' ' || (i + 1), dept, CASE WHEN rnd('cc_mgr_null', i) < 0.1 THEN NULL ELSE 1 + floor(rnd('cc_mgr', i) * 900)::BIGINT END, i < 42
FROM (SELECT i, ${uniformPickSql("rnd('cc_dept', i)", ['FIN', 'OPS', 'SALES', 'MKT', 'HR', 'IT', 'R&D', 'LOG'])} AS dept FROM range(${COST_CENTER_COUNT}) t(i))
ORDER BY 1;

CREATE TABLE sales.sales_reps (rep_id INTEGER, rep_name VARCHAR, region_cd VARCHAR, hire_dt DATE, quota_amt DECIMAL(14,2));
INSERT INTO sales.sales_reps
SELECT i + 1, ${uniformPickSql("rnd('rep_first', i)", ['Anna', 'Ben', 'Chloe', 'Diego', 'Elif', 'Femi', 'Grace', 'Hiro', 'Ines', 'Jonas'])} || ' '
    || ${uniformPickSql("rnd('rep_last', i)", ['Garcia', 'Muller', 'Rossi', 'Smith', 'Tanaka', 'Okafor', 'Novak', 'Silva', 'Dubois', 'Larsen'])},
  list_element(${sqlList(SALES_REGIONS)}, 1 + i // ${REPS_PER_REGION}),
  DATE '2012-01-01' + floor(rnd('rep_hire', i) * 4300)::INTEGER, round(400000 + rnd('rep_quota', i) * 1200000, -3)::DECIMAL(14,2)
FROM range(${SALES_REGIONS.length * REPS_PER_REGION}) t(i)
ORDER BY 1;

CREATE TABLE sales.customers (cust_id BIGINT, cust_no VARCHAR, cust_name VARCHAR, region_cd VARCHAR, country_cd VARCHAR, credit_limit DECIMAL(14,2), pmt_terms VARCHAR, created_dt DATE);
INSERT INTO sales.customers
SELECT i + 1, printf('C%07d', 2000000 + i),
  ${uniformPickSql("rnd('cust_name_a', i)", ['Apex', 'Blue River', 'Cobalt', 'Delta', 'Evergreen', 'Granite', 'Harbor', 'Ion', 'Juniper', 'Keystone'])} || ' '
    || ${uniformPickSql("rnd('cust_name_b', i)", ['Industries', 'Manufacturing', 'Supply', 'Holdings', 'GmbH', 'Ltd', 'S.A.', 'Group'])},
  region, CASE region WHEN 'NA-East' THEN 'US' WHEN 'NA-West' THEN 'US' WHEN 'EMEA-North' THEN ${uniformPickSql("rnd('cust_country', i)", ['DE', 'NL', 'SE', 'GB'])}
    WHEN 'EMEA-South' THEN ${uniformPickSql("rnd('cust_country', i)", ['ES', 'IT', 'PT', 'GR'])} WHEN 'APAC' THEN ${uniformPickSql("rnd('cust_country', i)", ['SG', 'AU', 'JP'])} ELSE ${uniformPickSql("rnd('cust_country', i)", ['MX', 'BR', 'CL'])} END,
  CASE WHEN rnd('cust_credit_null', i) < 0.08 THEN NULL ELSE round(10000 + rnd('cust_credit', i) * 490000, -3) END::DECIMAL(14,2),
  ${weightedPickSql("rnd('cust_terms', i)", [
    ['NET30', 0.6],
    ['NET60', 0.25],
    ['NET15', 0.1],
    [null, 0.05],
  ])},
  DATE '2010-01-01' + floor(rnd('cust_created', i) * 5000)::INTEGER
FROM (SELECT i, ${weightedPickSql(
    "rnd('cust_region', i)",
    SALES_REGIONS.map((region) => [region, 1] as const),
  )} AS region FROM range(${customerCount}) t(i))
ORDER BY 1;
`;
}

function salesSql(orderCount: number, customerCount: number): string {
  const regionIndex = `list_position(${sqlList(SALES_REGIONS)}, c.region_cd) - 1`;
  return `
CREATE TEMP TABLE stg_erp_orders AS
SELECT o.order_id, o.cust_id, (${regionIndex}) * ${REPS_PER_REGION} + 1 + floor(rnd('order_rep', o.order_id) * ${REPS_PER_REGION})::INTEGER AS rep_id,
  c.region_cd, DATE '2023-01-01' + floor(rnd('order_dt', o.order_id) * 731)::INTEGER AS order_dt,
  1 + floor(rnd('order_whse', o.order_id) * 10)::INTEGER AS ship_whse_id
FROM (SELECT i + 1 AS order_id, 1 + floor(rnd('order_cust', i + 1) * ${customerCount})::BIGINT AS cust_id FROM range(${orderCount}) t(i)) o
JOIN sales.customers c ON c.cust_id = o.cust_id;

CREATE TABLE sales.order_lines (order_id BIGINT, line_no INTEGER, item_id BIGINT, qty DECIMAL(14,3), unit_price DECIMAL(14,4), disc_pct DECIMAL(5,2), line_amt DECIMAL(16,2), line_status VARCHAR);
INSERT INTO sales.order_lines
SELECT order_id, line_no, item_id, qty, unit_price, disc_pct, round(qty * unit_price * (1 - disc_pct / 100), 2)::DECIMAL(16,2),
  ${weightedPickSql("rnd2('line_status', order_id, line_no)", [
    ['SHIPPED', 0.86],
    ['OPEN', 0.08],
    ['BACKORDER', 0.04],
    ['CANCELLED', 0.02],
  ])}
FROM (
  SELECT o.order_id, l.line_no, it.item_id,
    (1 + floor(-ln(1 - rnd2('line_qty', o.order_id, l.line_no)) * 12))::DECIMAL(14,3) AS qty,
    it.list_price::DECIMAL(14,4) AS unit_price,
    -- ${DISCOUNTING_REGION} reps discount deeply and almost always (pattern 1)
    CASE WHEN o.region_cd = '${DISCOUNTING_REGION}' THEN round(10 + rnd2('line_disc', o.order_id, l.line_no) * 16, 2)
         WHEN rnd2('line_disc_any', o.order_id, l.line_no) < 0.5 THEN 0
         ELSE round(rnd2('line_disc', o.order_id, l.line_no) * 12, 2) END::DECIMAL(5,2) AS disc_pct
  FROM stg_erp_orders o,
  LATERAL (SELECT unnest(range(1, 2 + floor(rnd('order_lines', o.order_id) * 9)::INTEGER))::INTEGER AS line_no) l
  JOIN inventory.items it ON it.item_id = 1 + floor(rnd2('line_item', o.order_id, l.line_no) * ${ITEM_COUNT})::BIGINT
)
ORDER BY order_id, line_no;

CREATE TABLE sales.orders (order_id BIGINT, order_no VARCHAR, cust_id BIGINT, rep_id INTEGER, order_dt DATE, req_ship_dt DATE, ship_whse_id INTEGER, currency_cd VARCHAR, order_status VARCHAR, order_total DECIMAL(16,2));
INSERT INTO sales.orders
SELECT o.order_id, printf('SO%08d', 30000000 + o.order_id), o.cust_id, o.rep_id, o.order_dt,
  CASE WHEN rnd('order_req_null', o.order_id) < 0.15 THEN NULL ELSE o.order_dt + (3 + floor(rnd('order_req', o.order_id) * 25))::INTEGER END,
  o.ship_whse_id, CASE WHEN o.region_cd LIKE 'EMEA%' THEN 'EUR' ELSE 'USD' END,
  ${weightedPickSql("rnd('order_status', o.order_id)", [
    ['CLOSED', 0.82],
    ['OPEN', 0.1],
    ['ON_HOLD', 0.05],
    ['CANCELLED', 0.03],
  ])},
  t.order_total
FROM stg_erp_orders o JOIN (SELECT order_id, sum(line_amt)::DECIMAL(16,2) AS order_total FROM sales.order_lines GROUP BY order_id) t USING (order_id)
ORDER BY o.order_id;
`;
}

function ledgerSql(entryCount: number): string {
  return `
CREATE TABLE finance.gl_entries (
  entry_id BIGINT, jrnl_id BIGINT, posting_dt DATE, fiscal_period VARCHAR, acct_no VARCHAR, cc_code VARCHAR,
  debit_amt DECIMAL(16,2), credit_amt DECIMAL(16,2), src_module VARCHAR, created_by VARCHAR, line_descr VARCHAR);
INSERT INTO finance.gl_entries
SELECT entry_id, 1 + (entry_id - 1) // 4, posting_dt, strftime(posting_dt, '%Y-P%m'),
  (10000 + floor(rnd('gl_acct', entry_id) * ${GL_ACCOUNT_COUNT}) * 10)::BIGINT::VARCHAR,
  'CC' || (1000 + floor(rnd('gl_cc', entry_id) * ${COST_CENTER_COUNT}) * 10)::BIGINT,
  CASE WHEN rnd('gl_side', entry_id) < 0.5 THEN amount ELSE 0 END::DECIMAL(16,2),
  CASE WHEN rnd('gl_side', entry_id) < 0.5 THEN 0 ELSE amount END::DECIMAL(16,2),
  src_module,
  CASE WHEN src_module = 'MAN' THEN ${uniformPickSql("rnd('gl_user', entry_id)", ['CFO_OFFICE', 'JDOE', 'MKOWALSKI', 'ASMITH'])} ELSE 'BATCH_' || src_module END,
  CASE WHEN rnd('gl_descr_null', entry_id) < 0.3 THEN NULL ELSE src_module || ' posting ' || entry_id END
FROM (
  SELECT entry_id, src_module, round(exp(rnd('gl_amount', entry_id) * 9), 2) AS amount,
    -- manual journals bunch into the last three days of each quarter (pattern 2)
    CASE WHEN src_module = 'MAN' AND rnd('gl_quarter_end', entry_id) < 0.45
      THEN ((DATE '2023-01-01' + to_months(3 * (1 + floor(rnd('gl_quarter', entry_id) * 8)::INTEGER)))::DATE - 1 - floor(rnd('gl_qe_day', entry_id) * 3)::INTEGER)
      ELSE DATE '2023-01-01' + floor(rnd('gl_day', entry_id) * 731)::INTEGER END AS posting_dt
  FROM (SELECT i + 1 AS entry_id, ${weightedPickSql("rnd('gl_source', i + 1)", [
    ['AP', 0.3],
    ['AR', 0.25],
    ['INV', 0.2],
    ['PAY', 0.12],
    ['MAN', 0.08],
    ['FA', 0.05],
  ])} AS src_module
        FROM range(${entryCount}) t(i))
)
ORDER BY entry_id;
`;
}

function stockSql(movementCount: number): string {
  return `
CREATE TABLE inventory.stock_movements (
  mvmt_id BIGINT, mvmt_ts TIMESTAMP, item_id BIGINT, whse_id INTEGER, mvmt_type VARCHAR, qty DECIMAL(14,3),
  unit_cost DECIMAL(14,4), ref_doc_no VARCHAR, reason_cd VARCHAR, user_id VARCHAR);
INSERT INTO inventory.stock_movements
SELECT mvmt_id, mvmt_ts, item_id, whse_id, mvmt_type,
  (CASE WHEN mvmt_type IN ('ISSUE', 'XFER_OUT', 'ADJ_WO') THEN -1 ELSE 1 END * (1 + floor(-ln(1 - rnd('mv_qty', mvmt_id)) * 20)))::DECIMAL(14,3),
  it.std_cost,
  CASE WHEN mvmt_type IN ('ADJ_WO', 'CYC_ADJ') OR rnd('mv_ref_null', mvmt_id) < 0.05 THEN NULL ELSE printf('DOC%09d', floor(rnd('mv_ref', mvmt_id) * 1e9)::BIGINT) END,
  CASE WHEN mvmt_type = 'ADJ_WO' THEN ${uniformPickSql("rnd('mv_reason', mvmt_id)", ['DMG', 'EXP', 'LOST', 'QC_REJ'])} WHEN mvmt_type = 'CYC_ADJ' THEN 'COUNT' END,
  CASE WHEN mvmt_type IN ('ADJ_WO', 'CYC_ADJ') THEN ${uniformPickSql("rnd('mv_user', mvmt_id)", ['WMS_SUP1', 'WMS_SUP2', 'JDOE'])} ELSE 'WMS_BATCH' END
FROM (
  SELECT mvmt_id, item_id, whse_id, mvmt_ts,
    -- ${WRITE_OFF_WAREHOUSE.code} writes off stock about five times as often as the other sites (pattern 3)
    CASE WHEN rnd('mv_writeoff', mvmt_id) < CASE WHEN whse_id = ${WRITE_OFF_WAREHOUSE.id} THEN 0.08 ELSE 0.015 END THEN 'ADJ_WO'
      ELSE ${weightedPickSql("rnd('mv_type', mvmt_id)", [
        ['RCPT', 0.3],
        ['ISSUE', 0.48],
        ['XFER_IN', 0.08],
        ['XFER_OUT', 0.08],
        ['CYC_ADJ', 0.06],
      ])} END AS mvmt_type
  FROM (SELECT i + 1 AS mvmt_id, 1 + floor(rnd('mv_item', i + 1) * ${ITEM_COUNT})::BIGINT AS item_id, 1 + floor(rnd('mv_whse', i + 1) * 10)::INTEGER AS whse_id,
          TIMESTAMP '2023-01-01' + to_seconds(floor(rnd('mv_ts', i + 1) * 731 * 86400)::BIGINT) AS mvmt_ts
        FROM range(${movementCount}) t(i))
) m
JOIN inventory.items it USING (item_id)
ORDER BY mvmt_id;
`;
}

const patterns: PlantedPatternSpec[] = [
  {
    id: 'erp-emea-south-discounting',
    area: 'sales',
    title: 'EMEA-South reps discount about six times as deeply',
    description: `Order lines booked by ${DISCOUNTING_REGION} sales reps carry an average discount near 18%, against about 3% for every other region.`,
    keywords: ['emea-south', 'discount', 'region', 'sales rep', 'margin'],
    tables: ['sales.order_lines', 'sales.orders', 'sales.sales_reps'],
    check: {
      sql: `WITH discounts AS (
  SELECT avg(l.disc_pct) FILTER (WHERE r.region_cd = '${DISCOUNTING_REGION}')::DOUBLE AS emea_south_avg_disc_pct,
         avg(l.disc_pct) FILTER (WHERE r.region_cd <> '${DISCOUNTING_REGION}')::DOUBLE AS other_regions_avg_disc_pct
  FROM sales.order_lines l JOIN sales.orders o ON o.order_id = l.order_id JOIN sales.sales_reps r ON r.rep_id = o.rep_id
)
SELECT emea_south_avg_disc_pct / other_regions_avg_disc_pct AS value, * FROM discounts`,
      expect: { op: '>', value: 3 },
    },
  },
  {
    id: 'erp-quarter-end-manual-journals',
    area: 'finance',
    title: 'Manual journal entries bunch up in the last days of each quarter',
    description:
      'About half of all manual (MAN) general-ledger entries are posted in the last three days of a quarter, against about 3% of system-generated entries.',
    keywords: ['manual', 'journal', 'quarter-end', 'gl', 'posting'],
    tables: ['finance.gl_entries'],
    check: {
      sql: `WITH entries AS (
  SELECT src_module, (date_trunc('quarter', posting_dt) + INTERVAL 3 MONTH)::DATE - posting_dt <= 3 AS in_last_three_days
  FROM finance.gl_entries
)
SELECT avg(in_last_three_days::INTEGER) FILTER (WHERE src_module = 'MAN') AS value,
  avg(in_last_three_days::INTEGER) FILTER (WHERE src_module <> 'MAN') AS system_entries_quarter_end_share,
  count(*) FILTER (WHERE src_module = 'MAN') AS manual_entries
FROM entries`,
      expect: { op: '>', value: 0.3 },
    },
  },
  {
    id: 'erp-rotterdam-write-offs',
    area: 'inventory',
    title: `Warehouse ${WRITE_OFF_WAREHOUSE.code} (Rotterdam) writes off stock far more often`,
    description: `Write-offs (ADJ_WO) are about 8% of all stock movements at ${WRITE_OFF_WAREHOUSE.code}, against about 1.5% at the other nine warehouses.`,
    keywords: ['wh-07', 'rotterdam', 'write-off', 'warehouse', 'stock', 'shrinkage'],
    tables: ['inventory.stock_movements', 'inventory.warehouses'],
    check: {
      sql: `WITH rates AS (
  SELECT avg((m.mvmt_type = 'ADJ_WO')::INTEGER) FILTER (WHERE w.whse_code = '${WRITE_OFF_WAREHOUSE.code}') AS wh07_write_off_share,
         avg((m.mvmt_type = 'ADJ_WO')::INTEGER) FILTER (WHERE w.whse_code <> '${WRITE_OFF_WAREHOUSE.code}') AS other_warehouses_write_off_share
  FROM inventory.stock_movements m JOIN inventory.warehouses w ON w.whse_id = m.whse_id
)
SELECT wh07_write_off_share / other_warehouses_write_off_share AS value, * FROM rates`,
      expect: { op: '>', value: 3 },
    },
  },
];

export const erpDataset: DemoDataset = {
  kind: 'erp',
  buildSql({ seed, scale }) {
    const customerCount = scaledCount(CUSTOMERS_AT_SCALE_1, scale, 50);
    return [
      ...fillerSql(seed),
      mastersSql(customerCount),
      salesSql(scaledCount(ORDERS_AT_SCALE_1, scale, 200), customerCount),
      ledgerSql(scaledCount(GL_ENTRIES_AT_SCALE_1, scale, 1_000)),
      stockSql(scaledCount(STOCK_MOVEMENTS_AT_SCALE_1, scale, 1_000)),
    ];
  },
  patterns,
};
