import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import {
  BROWSER_PROVIDER,
  EndpointSchema,
  TimeoutSchema,
  browserProfile,
  originAllowed,
  OriginsSchema,
  withBrowser,
} from './common.js';

const TargetSchema = z.strictObject({
  id: z.string(),
  type: z.string(),
  url: z.string(),
  title: z.string(),
  attached: z.boolean(),
});

/** `normalized_result` of `list_browser_targets`. */
export const BrowserTargetsSchema = z.strictObject({
  endpoint: z.string(),
  targets: z.array(TargetSchema),
});

/** `list_browser_targets`: the pages, iframes and workers of a DevTools endpoint. */
export const listBrowserTargetsTool = defineTool({
  name: 'list_browser_targets',
  title: 'List browser targets',
  description:
    'Lists the pages, out-of-process iframes, workers and service workers of a loopback Chrome DevTools endpoint (id, type, url, title, attached). Use an id as target_id of inspect_web_page or discover_webmcp_tools.',
  input: z.strictObject({
    endpoint: EndpointSchema,
    origins: OriginsSchema,
    timeout_ms: TimeoutSchema,
  }),
  result: BrowserTargetsSchema,
  examples: [
    {
      input: { endpoint: 'http://127.0.0.1:9222' },
      description: 'The targets of a browser started with --remote-debugging-port=9222.',
    },
  ],
  effects: { ...RECORDS_EVIDENCE, openWorld: true, launchesProcess: true },
  produces: 'evidence',
  run: async (input, context) => {
    const targets = await withBrowser(
      input.endpoint,
      input.timeout_ms,
      'listing targets',
      context,
      async ({ handle }) => handle.targets(),
    );
    const listed = targets
      .filter((t) => originAllowed(t.url, input.origins))
      .map((t) => ({ id: t.targetId, type: t.type, url: t.url, title: t.title, attached: t.attached }))
      .sort((a, b) => (a.type + a.id < b.type + b.id ? -1 : 1));
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('targets', {}),
      parameters: { endpoint: input.endpoint, origins: input.origins ?? null },
      normalized_result: { endpoint: input.endpoint, targets: listed },
      raw_result: null,
      confidence: 'observed' as const,
      limitations: [],
      coverage: { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [],
    };
  },
});
