/** Copies a DuckDB demo warehouse into a throwaway PostgreSQL cluster, so the same data can be explored in the PostgreSQL dialect. */
import pg from 'pg';
import { discoverSchema } from '../../src/schema/schema-discovery.js';
import type { Warehouse } from '../../src/warehouse/port.js';

/** DuckDB column types as PostgreSQL writes them. */
function postgresType(duckdbType: string): string {
  const type = duckdbType.toUpperCase();
  if (type === 'VARCHAR') return 'text';
  if (type === 'DOUBLE') return 'double precision';
  if (type.startsWith('DECIMAL')) return type.replace('DECIMAL', 'numeric');
  return type.toLowerCase();
}

/** A name as PostgreSQL reads it verbatim (spaces, capitals, accents, reserved words). */
function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Copies every table of the DuckDB demo into `public`, with the primary keys. */
export async function copyDemo(source: Warehouse, adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const table of await discoverSchema(source)) {
      const keys = table.columns.filter((column) => column.category === 'primary_key').map((column) => quoted(column.name));
      const columns = table.columns.map(
        (column) => `${quoted(column.name)} ${postgresType(column.type)}${column.nullable ? '' : ' NOT NULL'}`,
      );
      await client.query(
        `CREATE TABLE public.${quoted(table.name)} (${columns.join(', ')}${keys.length > 0 ? `, PRIMARY KEY (${keys.join(', ')})` : ''})`,
      );
      const { rows } = await source.query(`SELECT * FROM ${quoted(table.schema)}.${quoted(table.name)}`, { maxRows: 200_000 });
      const names = table.columns.map((column) => column.name);
      for (let start = 0; start < rows.length; start += 1_000) {
        const batch = rows.slice(start, start + 1_000);
        const values: unknown[] = [];
        const tuples = batch.map(
          (row) =>
            `(${names
              .map((name) => {
                values.push(row[name]);
                return `$${values.length}`;
              })
              .join(', ')})`,
        );
        await client.query(
          `INSERT INTO public.${quoted(table.name)} (${names.map(quoted).join(', ')}) VALUES ${tuples.join(', ')}`,
          values,
        );
      }
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
