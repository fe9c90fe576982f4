/** The key of a warehouse's schema: changes when what is described changes, never contains credentials. */
import { createHash } from 'node:crypto';

export interface WarehouseIdentity {
  /** Warehouse.description: safe to hash (no credentials). */
  description: string;
  /** Datasets/schemas the project is limited to, if any. */
  datasets?: readonly string[];
  /** The tenant filter column, when one is configured (its value does not change the schema). */
  filterField?: string | undefined;
}

/** 32 hex characters of SHA-256 over a canonical form; dataset order does not matter. */
export function warehouseHash(identity: WarehouseIdentity): string {
  const canonical = JSON.stringify({
    description: identity.description,
    datasets: [...(identity.datasets ?? [])].sort(),
    filter_field: identity.filterField ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}
