/** What every route of the API is built from. */
import type { AssayConfig } from '../config/index.js';
import type { DiscoveryDeps } from '../discovery/context.js';
import type { RunLauncher } from '../fleet/port.js';
import type { Logger } from '../logging/index.js';
import type { RunStartLimiter, StreamLimiter } from './limits.js';
import type { ApiMetrics } from './metrics/index.js';

export interface ApiDeps {
  /** The composed runtime (store, warehouse, packs, model binding, clock). */
  runtime: DiscoveryDeps;
  launcher: RunLauncher;
  config: AssayConfig;
  logger: Logger;
  metrics: ApiMetrics;
  /** Per-key limits counted in this process. */
  limits: { runStarts: RunStartLimiter; streams: StreamLimiter };
}
