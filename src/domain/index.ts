/** The nouns of Assay as zod schemas and types: projects, runs, steps, insights, recommendations, feedback, results. */
export * from './compact-result.js';
export * from './project.js';
export * from './run.js';
export * from './exploration-step.js';
export * from './claim.js';
export * from './claim-chart.js';
export * from './finding.js';
export * from './insight.js';
export * from './recommendation.js';
export * from './feedback.js';
export * from './result.js';
export * from './api-key.js';
