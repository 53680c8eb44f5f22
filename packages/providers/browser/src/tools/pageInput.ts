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
  url: z.string().min(1).max(8192).optional().describe('With endpoint "owned": the page to load in a fresh tab.'),
  origins: OriginsSchema,
  load_timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .describe('With "owned": how long to wait for the load event before reporting what loaded (default 10000).'),
  timeout_ms: TimeoutSchema,
};

/** How long one collection step may wait for a busy page, in ms. */
export const STEP_MS = 3000;
