import { z } from 'zod';
import { EndpointSchema, TimeoutSchema } from './common.js';

/** The fields every page tool takes: endpoint, target or URL, deadlines (a tool that filters by origin adds `origins`). */
export const pageFields = {
  endpoint: EndpointSchema,
  target_id: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      "The target to observe as it is (list_browser_targets): a tab of an external endpoint, or one the session's owned browser already has.",
    ),
  url: z.string().min(1).max(8192).optional().describe('"owned": load this page in a new tab.'),
  load_timeout_ms: z.number().int().min(100).max(600_000).default(10_000).describe('"owned": load event wait, ms.'),
  timeout_ms: TimeoutSchema,
};

/** How long one collection step may wait for a busy page, in ms. */
export const STEP_MS = 3000;
