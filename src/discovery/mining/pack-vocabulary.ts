/**
 * A pack's domain words and outcomes (pack.json `mining`), resolved against the warehouse: bare table
 * names become qualified ones, and each declared outcome becomes a derived value on its table with the
 * rate measure that reads it. Outcomes whose tables or columns the warehouse lacks are left out — a
 * pack describes a kind of business, not one warehouse.
 */
import type { ClaimDerived } from '../../domain/index.js';
import type { TableDescription } from '../../warehouse/port.js';
import type { PackMining } from '../packs/pack-schema.js';
import type { MeasureSpec } from './measures.js';

export interface DeclaredOutcome {
  /** Qualified table the outcome is a rate over. */
  table: string;
  derived: ClaimDerived;
  measure: MeasureSpec;
}

export interface PackVocabulary {
  nouns: Record<string, string>;
  /** `schema.table.column` → words. */
  labels: Record<string, string>;
  outcomes: DeclaredOutcome[];
  /** `schema.table.column` (a declared outcome by its id) → the direction in which its measure is better. */
  better: Record<string, 'higher' | 'lower'>;
}

function tableNamed(tables: readonly TableDescription[], name: string): TableDescription | undefined {
  const wanted = name.toLowerCase();
  return tables.find((table) => table.qualified.toLowerCase() === wanted) ?? tables.find((table) => table.name.toLowerCase() === wanted);
}

function hasColumns(table: TableDescription, names: ReadonlyArray<string | undefined>): boolean {
  return names.every((name) => name === undefined || table.columns.some((column) => column.name === name));
}

export function packVocabulary(mining: PackMining | undefined, tables: readonly TableDescription[]): PackVocabulary {
  const vocabulary: PackVocabulary = { nouns: {}, labels: {}, outcomes: [], better: {} };
  if (!mining) return vocabulary;
  for (const [name, noun] of Object.entries(mining.nouns)) {
    const table = tableNamed(tables, name);
    if (table) vocabulary.nouns[table.qualified] = noun;
  }
  for (const [key, label] of Object.entries(mining.labels)) {
    const dot = key.lastIndexOf('.');
    const table = dot > 0 ? tableNamed(tables, key.slice(0, dot)) : undefined;
    if (table) vocabulary.labels[`${table.qualified}.${key.slice(dot + 1)}`] = label;
  }
  for (const [key, better] of Object.entries(mining.better ?? {})) {
    const dot = key.lastIndexOf('.');
    const table = dot > 0 ? tableNamed(tables, key.slice(0, dot)) : undefined;
    if (table) vocabulary.better[`${table.qualified}.${key.slice(dot + 1)}`] = better;
  }
  for (const outcome of mining.outcomes) {
    const table = tableNamed(tables, outcome.table);
    const child = tableNamed(tables, outcome.child.table);
    if (!table || !child) continue;
    if (!hasColumns(table, [outcome.child.key, outcome.child.window?.since, ...outcome.among.map((condition) => condition.column)]))
      continue;
    if (
      !hasColumns(child, [
        outcome.child.link,
        outcome.child.window?.at,
        ...(outcome.child.where ?? []).map((condition) => condition.column),
      ])
    )
      continue;
    const name = `${outcome.id}`;
    if (outcome.better) vocabulary.better[`${table.qualified}.${name}`] = outcome.better;
    const derived: ClaimDerived = {
      from: 'child',
      name,
      table: child.qualified,
      link: outcome.child.link,
      key: outcome.child.key,
      aggregate: 'exists',
      ...(outcome.child.window ? { window: outcome.child.window } : {}),
      ...(outcome.child.where ? { where: outcome.child.where } : {}),
    };
    vocabulary.outcomes.push({
      table: table.qualified,
      derived,
      measure: {
        kind: 'rate',
        column: name,
        op: '=',
        value: outcome.present,
        label: outcome.label,
        source: 'declared',
        among: outcome.among.map((condition) => ({ ...condition })),
      },
    });
  }
  return vocabulary;
}
