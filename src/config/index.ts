/** Configuration: one zod schema over defaults, an optional config file and the environment, parsed once. */
export { configSchema, ENV_BINDINGS, type AssayConfig } from './schema.js';
export { loadConfig, describeConfig, redactUrl, type LoadConfigOptions } from './load.js';
