/**
 * Joins inferred from key-shaped columns: `orders.customer_id` → `customers` when a table named
 * `customer`/`customers` exists and has `id` or `customer_id`. The reference never filled its join
 * field; this gives the model the likely foreign keys without a warehouse round-trip.
 */
import { splitWords } from '../embed/local.js';
import type { TableSchema } from '../warehouse/port.js';

/** Table names a key prefix may refer to: `category` → category, categorys, categoryes, categories. */
function candidateTableNames(prefix: string): string[] {
  const names = [prefix, `${prefix}s`, `${prefix}es`];
  if (prefix.endsWith('y')) names.push(`${prefix.slice(0, -1)}ies`);
  return names;
}

/** `customer_id`, `customerId`, `CustomerID` → `customer`; anything not ending in an `id` word → null. */
export function keyPrefix(columnName: string): string | null {
  const words = splitWords(columnName);
  if (words.length < 2 || words[words.length - 1] !== 'id') return null;
  return words.slice(0, -1).join('_');
}

function hasKeyColumn(table: TableSchema, columnName: string): boolean {
  const wanted = splitWords(columnName).join('_');
  return table.columns.some((column) => {
    const name = splitWords(column.name).join('_');
    return name === 'id' || name === wanted;
  });
}

/**
 * For every table, the qualified names of up to `limit` tables it likely joins to, in its column
 * order. Linear in the number of columns: targets are found through a map of bare names.
 */
export function inferJoins(tables: readonly TableSchema[], limit: number): Map<string, string[]> {
  const byBareName = new Map<string, TableSchema[]>();
  for (const table of tables) {
    const key = splitWords(table.name).join('_');
    const list = byBareName.get(key);
    if (list) list.push(table);
    else byBareName.set(key, [table]);
  }
  for (const list of byBareName.values()) list.sort((left, right) => (left.qualified < right.qualified ? -1 : 1));

  const joins = new Map<string, string[]>();
  for (const table of tables) {
    const targets: string[] = [];
    for (const column of table.columns) {
      if (targets.length >= limit) break;
      const prefix = keyPrefix(column.name);
      if (prefix === null) continue;
      for (const name of candidateTableNames(prefix)) {
        const candidates = (byBareName.get(name) ?? []).filter(
          (candidate) => candidate.qualified !== table.qualified && hasKeyColumn(candidate, column.name),
        );
        // Prefer the table in the same schema; otherwise the first by name, so the answer is stable.
        const target = candidates.find((candidate) => candidate.schema === table.schema) ?? candidates[0];
        if (target && !targets.includes(target.qualified)) {
          targets.push(target.qualified);
          break;
        }
      }
    }
    joins.set(table.qualified, targets);
  }
  return joins;
}
