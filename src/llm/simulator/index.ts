/** The wire-compatible LLM simulator (Anthropic, OpenAI, Bedrock on one port) and its brains. */
export { startLlmSimulator, type LlmSimulator, type LlmSimulatorOptions, type LlmSimulatorStats } from './server.js';
export { echoBrain, scriptedBrain, type SimulatorBrain, type SimulatorBrainRequest } from './brains.js';
export type { SimulatorApi } from './dialect.js';
