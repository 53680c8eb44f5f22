import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { collectInspection } from '../inspect/collect.js';
import { checkPageRequest, openPage } from '../inspect/open.js';
import { readServiceWorkers } from '../inspect/serviceWorkers.js';
import { WebPageInspectionSchema } from '../inspect/schema.js';
import { Steps } from '../inspect/step.js';
import { originAllowed } from '../origins.js';
import { BROWSER_PROVIDER, browserProfile, originsSchema, withBrowser } from './common.js';
import { STEP_MS, pageFields } from './pageInput.js';

const InputSchema = z.strictObject({
  ...pageFields,
  origins: originsSchema(
    "only their scripts, stylesheets, resources, frames and service workers (the page's own console, storage and DOM outline are reported whatever its origin).",
  ),
  max_dom_nodes: z.number().int().min(0).max(5000).default(500).describe('Elements in the DOM outline (default 500).'),
  storage_values: z
    .boolean()
    .default(false)
    .describe('Also report local/session storage values (default: key names only).'),
});

/** `inspect_web_page`: a passive observation of one page. */
export const inspectWebPageTool = defineTool({
  name: 'inspect_web_page',
  title: 'Inspect web page',
  description:
    'Observes one page without changing it: document and frames, scripts (SHA-256, size, source map and whether it loads), stylesheets, network resources, console, storage key names, service workers, CSP and a bounded DOM outline. Either url (a new tab of the owned browser), or target_id (list_browser_targets) of "owned" or a loopback endpoint.',
  input: InputSchema,
  result: WebPageInspectionSchema,
  examples: [
    {
      input: { endpoint: 'owned', url: 'http://127.0.0.1:8080/' },
      description: 'Load a local page in a headless Chromium REA owns.',
    },
    {
      input: { endpoint: 'http://127.0.0.1:9222', target_id: 'D2A4B6C8E0F1A3B5C7D9E1F3A5B7C9D1' },
      description: 'Observe a tab of a running browser as it is.',
    },
  ],
  effects: { ...RECORDS_EVIDENCE, idempotent: false, openWorld: true, launchesProcess: true },
  produces: 'evidence',
  run: async (input, context) => {
    checkPageRequest(input, context);
    const { inspection, limitations } = await withBrowser(
      input.endpoint,
      input.timeout_ms,
      'page inspection',
      context,
      async (run) => {
        const steps = new Steps(run.signal, STEP_MS);
        const opened = await openPage(run.handle, input, {
          loadMs: input.load_timeout_ms,
          steps,
          track: run.track,
          opened: run.opened,
        });
        context.progress.report(`attached to ${opened.target.url}`, 'collect');
        const scope = input.origins ?? [new URL(opened.target.url || 'about:blank').origin];
        const targets = await run.handle.targets();
        const workers = await readServiceWorkers(opened.page, steps, targets, (url) => originAllowed(url, scope));
        const inspection = await collectInspection({
          ...opened,
          steps,
          endpoint: input.endpoint,
          fresh: opened.fresh,
          origins: input.origins,
          maxDomNodes: input.max_dom_nodes,
          storageValues: input.storage_values,
          workers,
          targets,
        });
        return { inspection, limitations: steps.limitations };
      },
    );
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('inspect', {
        max_dom_nodes: input.max_dom_nodes,
        storage_values: input.storage_values,
      }),
      parameters: {
        endpoint: input.endpoint,
        target_id: input.target_id ?? null,
        url: input.url ?? null,
        origins: input.origins ?? null,
      },
      normalized_result: inspection,
      raw_result: null,
      confidence: 'observed' as const,
      limitations,
      coverage:
        limitations.length === 0
          ? { status: 'complete' as const, reasons: [] }
          : { status: 'partial' as const, reasons: [...new Set(limitations.map((l) => l.kind))] },
      locations: [{ kind: 'url' as const, value: inspection.document.url }],
      evidence_links: [],
    };
  },
});
