/** What `GET /api/v1/runs/{runId}/report-link` answers. */
import { z } from 'zod';

export const reportLinkSchema = z.object({
  /** The report's address on this server, to open in a browser. */
  url: z.string(),
  /** The same without the origin, for a server behind a proxy that serves it under another base URL. */
  path: z.string(),
  expires_at: z.string(),
});
export type ReportLink = z.infer<typeof reportLinkSchema>;
