/** Significance tests from aggregate statistics, and the run-wide multiple-testing correction. */
export * from './tests.js';
export { benjaminiHochberg } from './multiple-testing.js';
