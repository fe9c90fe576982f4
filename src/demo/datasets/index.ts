/** The generator for each demo kind. */
import type { DemoDataset } from '../demo-dataset.js';
import type { DemoKind } from '../demo-kind.js';
import { ecommerceDataset } from './ecommerce.js';
import { erpDataset } from './erp.js';
import { gamingDataset } from './gaming.js';
import { socialDataset } from './social.js';

const DATASETS: Record<DemoKind, DemoDataset> = {
  ecommerce: ecommerceDataset,
  gaming: gamingDataset,
  social: socialDataset,
  erp: erpDataset,
};

export function demoDatasetFor(kind: DemoKind): DemoDataset {
  return DATASETS[kind];
}
