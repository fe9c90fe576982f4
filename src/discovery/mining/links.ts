/**
 * How tables point at each other, from their keys: `orders.customer_id` → `customers.customer_id`,
 * `customers.acquisition_channel_id` → `marketing_channels.channel_id` (a column ending in another
 * table's key), `refunds.order_item_id` → `order_items`. A mined table is widened with what these links
 * reach — its parents' labels and times, its children's counts, presence and totals — so a finding can
 * say "customers acquired through Paid Social place a second order far less often".
 */
import type { ClaimDerived } from '../../domain/index.js';
import type { TableDescription } from '../../warehouse/port.js';
import { nameWords } from '../packs/generation/warehouse-facts.js';

export interface Link {
  /** The table holding the reference. */
  child: TableDescription;
  column: string;
  /** The table referred to, and its key. */
  parent: TableDescription;
  key: string;
}

const IDENTIFIER_NAME = /(^id$|_id$|[a-z]Id$|_key$)/;
/** Parent columns worth reading as labels and categories (never identifiers or free text). */
const LABEL_TYPE = /^(varchar|text|char|character|string|bpchar|enum|citext|bool|boolean|tinyint\(1\)$)/i;
const TIME_TYPE = /^(date|timestamp|datetime)/i;
const NUMBER_TYPE =
  /^(tinyint(?!\(1\)$)|smallint|integer|int|int2|int4|int8|bigint|hugeint|decimal|numeric|real|float|float4|float8|double|money)/i;
/** Children's numbers that add up to a total per parent (amounts, quantities). */
const ADDITIVE_NAME = /(^|_)(amount|amt|revenue|sales|total|price|cost|spend|value|quantity|qty|units|usd|eur|gbp)(_|$)/i;
/** Names of a row's total amount, summed before other amounts. */
const TOTAL_NAME = /(^|_)(total|revenue|sales|gross|line_total)(_|$)|^amount$|_amount_total$/i;
/** Label-like parent columns, read first. */
const LABEL_NAME =
  /(^|_)(name|title|label|code|category|type|kind|class|tier|channel|region|country|segment|group|status|platform|source)$/i;

export const MAX_PARENT_COLUMNS = 4;
export const MAX_CHILD_SUMS = 2;
/** Child aggregates read per table: one table's fan-in is bounded. */
export const MAX_CHILD_LINKS = 4;

function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ses') || word.endsWith('xes')) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

function keyOf(table: TableDescription): string | undefined {
  const declared = table.columns.filter((column) => column.category === 'primary_key');
  if (declared.length === 1) return declared[0]?.name;
  if (declared.length > 1) return undefined;
  const bare = singular(table.name.toLowerCase());
  return table.columns.find((column) => column.name.toLowerCase() === 'id' || column.name.toLowerCase() === `${bare}_id`)?.name;
}

/** Every reference of one table to another's key. */
export function findLinks(tables: readonly TableDescription[]): Link[] {
  const keyed = tables
    .map((table) => ({ table, key: keyOf(table) }))
    .filter((item): item is { table: TableDescription; key: string } => item.key !== undefined);
  const links: Link[] = [];
  for (const child of tables) {
    for (const column of child.columns) {
      if (!IDENTIFIER_NAME.test(column.name)) continue;
      const name = column.name.toLowerCase();
      const targets = keyed.filter(({ table, key }) => {
        if (table.qualified === child.qualified) return false;
        const keyName = key.toLowerCase();
        if (keyName === 'id') return name === `${singular(table.name.toLowerCase())}_id`;
        return name === keyName || name.endsWith(`_${keyName}`);
      });
      // the most specific key wins (`channel_id` over `id`), then the name
      targets.sort((left, right) => right.key.length - left.key.length || (left.table.qualified < right.table.qualified ? -1 : 1));
      const target = targets[0];
      if (target) links.push({ child, column: column.name, parent: target.table, key: target.key });
    }
  }
  return links;
}

function shortName(table: TableDescription): string {
  return table.name.toLowerCase();
}

/** The words a derived value is named with: `marketing_channels.channel_name`, `orders.count`. */
export function derivedName(table: TableDescription, what: string): string {
  return `${shortName(table)}.${what}`;
}

/**
 * What a table is widened with: its parents' label and time columns, and per child table the presence,
 * the count and the totals of its rows.
 */
export function derivedFor(table: TableDescription, links: readonly Link[]): ClaimDerived[] {
  const derived: ClaimDerived[] = [];
  const taken = new Set(table.columns.map((column) => column.name));
  const add = (item: ClaimDerived) => {
    if (taken.has(item.name)) return;
    taken.add(item.name);
    derived.push(item);
  };
  for (const link of links.filter((item) => item.child.qualified === table.qualified)) {
    const columns = link.parent.columns
      .filter(
        (column) =>
          column.name !== link.key && !IDENTIFIER_NAME.test(column.name) && (LABEL_TYPE.test(column.type) || TIME_TYPE.test(column.type)),
      )
      .sort((left, right) => Number(LABEL_NAME.test(right.name)) - Number(LABEL_NAME.test(left.name)))
      .slice(0, MAX_PARENT_COLUMNS);
    for (const column of columns)
      add({
        from: 'parent',
        name: derivedName(link.parent, column.name),
        table: link.parent.qualified,
        link: link.column,
        key: link.key,
        column: column.name,
      });
  }
  const children = links.filter((item) => item.parent.qualified === table.qualified).slice(0, MAX_CHILD_LINKS);
  for (const link of children) {
    const base = { from: 'child' as const, table: link.child.qualified, link: link.column, key: link.key };
    add({ ...base, name: derivedName(link.child, 'exists'), aggregate: 'exists' });
    add({ ...base, name: derivedName(link.child, 'count'), aggregate: 'count' });
    const sums = link.child.columns
      .filter((column) => NUMBER_TYPE.test(column.type) && !IDENTIFIER_NAME.test(column.name) && ADDITIVE_NAME.test(column.name))
      // the total itself before its parts (total_amount before discount_amount)
      .sort((left, right) => Number(TOTAL_NAME.test(right.name)) - Number(TOTAL_NAME.test(left.name)))
      .slice(0, MAX_CHILD_SUMS);
    for (const column of sums)
      add({ ...base, name: derivedName(link.child, `total_${column.name}`), aggregate: 'sum', column: column.name });
  }
  return derived;
}

/** Words for a derived value: "channel name of the marketing channel", "number of orders", "has an order". */
export function derivedLabel(item: ClaimDerived, columnLabel: (table: string, column: string) => string): string {
  const tableWords = nameWords(item.table.split('.').at(-1) ?? item.table).join(' ');
  if (item.from === 'parent') return columnLabel(item.table, item.column);
  switch (item.aggregate) {
    case 'exists':
      return `${/^[aeiou]/.test(tableWords) ? 'an' : 'a'} ${singular(tableWords)}`;
    case 'count':
      return `number of ${tableWords}`;
    case 'sum':
      return `total ${columnLabel(item.table, item.column ?? '')} of ${tableWords}`;
    case 'first':
      return `first ${singular(tableWords)} time`;
  }
}
