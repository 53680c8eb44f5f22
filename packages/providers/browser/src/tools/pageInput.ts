import { z } from 'zod';
import { EndpointSchema, OriginsSchema, TimeoutSchema } from './common.js';

/** The fields every page tool takes: endpoint, target or URL, origin filters, deadlines. */
export const pageFields = {
  endpoint: EndpointSchema,
  target_id: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      'With an external endpoint: the target to observe (list_browser_targets); it is not reloaded or changed.',
    ),
  url: z.string().min(1).max(8192).optional().describe('"owned": the page to load.'),
  origins: OriginsSchema,
  load_timeout_ms: z.number().int().min(100).max(600_000).default(10_000).describe('"owned": load event wait, ms.'),
  timeout_ms: TimeoutSchema,
};

/** How long one collection step may wait for a busy page, in ms. */
export const STEP_MS = 3000;
