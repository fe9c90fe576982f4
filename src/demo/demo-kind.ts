/** The kinds of demo warehouse `assay demo-data` can generate, and parsing of user input into one. */
import { ValidationError } from '../errors/index.js';

export const DEMO_KINDS = ['ecommerce', 'gaming', 'social', 'erp'] as const;
export type DemoKind = (typeof DEMO_KINDS)[number];

export function isDemoKind(value: string): value is DemoKind {
  return (DEMO_KINDS as readonly string[]).includes(value);
}

export function parseDemoKind(value: string): DemoKind {
  if (isDemoKind(value)) return value;
  throw new ValidationError(`unknown demo kind "${value}": choose one of ${DEMO_KINDS.join(', ')}`, [
    { path: 'kind', message: `expected one of ${DEMO_KINDS.join(', ')}` },
  ]);
}
