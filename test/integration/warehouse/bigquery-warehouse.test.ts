/**
 * The warehouse contract against real BigQuery — only when BIGQUERY_TEST_URL (bigquery://project/dataset,
 * an existing dataset the test may write its fixture tables into) and Google credentials (the
 * default chain, e.g. GOOGLE_APPLICATION_CREDENTIALS) are set. Nothing is faked without them.
 */
import { BigQuery } from '@google-cloud/bigquery';
import { openWarehouse, parseWarehouseUrl } from '../../../src/warehouse/index.js';
import { runWarehouseContract } from './contract.js';

const url = process.env.BIGQUERY_TEST_URL;
const skipReason =
  url === undefined
    ? 'BIGQUERY_TEST_URL is not set (bigquery://project/dataset, with Google credentials that may create tables in that dataset)'
    : undefined;

const FIXTURE = [
  'CREATE OR REPLACE TABLE customers (id INT64 NOT NULL, name STRING NOT NULL, country STRING, signup_date DATE NOT NULL)',
  "INSERT INTO customers VALUES (1, 'Ada', 'GB', '2024-01-05'), (2, 'Linus', 'FI', '2024-02-10'), (3, 'Grace', NULL, '2024-03-15')",
  `CREATE OR REPLACE TABLE orders (id INT64 NOT NULL, customer_id INT64 NOT NULL, amount NUMERIC(10, 2) NOT NULL, big_total INT64,
     created_at TIMESTAMP NOT NULL, note STRING)`,
  `INSERT INTO orders VALUES (1, 1, 10.50, 9007199254740993, '2024-01-06 10:00:00', NULL), (2, 1, 20.00, 5, '2024-01-07 11:30:00', 'gift'),
     (3, 2, 5.25, NULL, '2024-02-11 09:15:00', NULL), (4, 3, 99.99, 7, '2024-03-16 18:45:00', 'rush')`,
  'CREATE OR REPLACE TABLE canary (id INT64)',
  'INSERT INTO canary VALUES (1)',
  'CREATE OR REPLACE TABLE _assay_internal (id INT64)',
  'CREATE OR REPLACE VIEW big_orders AS SELECT * FROM orders WHERE amount > 15',
];

runWarehouseContract(
  'BigQuery',
  async () => {
    const target = parseWarehouseUrl(url ?? '');
    if (target.engine !== 'bigquery') throw new Error('BIGQUERY_TEST_URL must be bigquery://project/dataset');
    const admin = new BigQuery({ projectId: target.project });
    const dataset = target.datasets[0] ?? '';
    for (const statement of FIXTURE)
      await admin.query({ query: statement, defaultDataset: { projectId: target.project, datasetId: dataset } });
    const warehouse = await openWarehouse(url ?? '');
    return {
      warehouse,
      declaresConstraints: true,
      columnTypes: { id: /^INT64$/, amount: /^NUMERIC\(10, 2\)$/, big_total: /^INT64$/, created_at: /^TIMESTAMP$/, note: /^STRING$/ },
      endlessQuery: 'SELECT COUNT(*) AS n FROM UNNEST(GENERATE_ARRAY(1, 1000000)) AS a, UNNEST(GENERATE_ARRAY(1, 1000000)) AS b',
      cellsQuery: `SELECT DATE '2024-03-01' AS d, TIMESTAMP '2024-03-01 10:11:12' AS ts, 9007199254740993 AS big, 42 AS small,
                  NUMERIC '12.34' AS amount, CAST(NULL AS INT64) AS nothing, 1 = 1 AS yes`,
      // the engine layer alone: a dry run that is not a SELECT never runs (the service account's roles stop the rest)
      runUnguarded: async (sql) => {
        const [job] = await admin.createQueryJob({
          query: sql,
          dryRun: true,
          defaultDataset: { projectId: target.project, datasetId: dataset },
        });
        if (job.metadata?.statistics?.query?.statementType !== 'SELECT')
          throw new Error(`refused: ${job.metadata?.statistics?.query?.statementType}`);
        return job;
      },
      close: () => warehouse.close(),
    };
  },
  skipReason === undefined ? {} : { skipReason },
);
