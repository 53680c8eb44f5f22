import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { checkPageRequest, openPage } from '../inspect/open.js';
import { Steps } from '../inspect/step.js';
import { captureScreenshot } from '../screenshot/capture.js';
import { WebScreenshotSchema } from '../screenshot/schema.js';
import { BROWSER_PROVIDER, browserProfile, withBrowser } from './common.js';
import { STEP_MS, pageFields } from './pageInput.js';

/** `capture_web_screenshot`: a PNG of a page's viewport or of one element, without changing the page. */
export const captureWebScreenshotTool = defineTool({
  name: 'capture_web_screenshot',
  title: 'Capture web screenshot',
  description:
    'Captures a PNG of a page (the viewport) or of the first element a CSS selector matches, without changing the page, into a fresh directory; the file is named by its SHA-256. Either url (a new tab of the owned browser), or target_id (list_browser_targets) of "owned" or a loopback endpoint. Compare two with compare_web_screenshots.',
  input: z.strictObject({
    ...pageFields,
    selector: z.string().min(1).max(1024).optional().describe('CSS selector of the element to capture.'),
  }),
  result: WebScreenshotSchema,
  examples: [
    {
      input: { endpoint: 'owned', url: 'http://127.0.0.1:8080/', selector: 'form' },
      description: 'Capture the form of a local page.',
    },
    {
      input: { endpoint: 'http://127.0.0.1:9222', target_id: 'D2A4B6C8E0F1A3B5C7D9E1F3A5B7C9D1' },
      description: 'Capture a tab of a running browser as it is.',
    },
  ],
  effects: { ...RECORDS_EVIDENCE, idempotent: false, openWorld: true, launchesProcess: true, writesFilesystem: true },
  produces: 'evidence',
  run: async (input, context) => {
    checkPageRequest(input, context);
    const { shot, target, limitations } = await withBrowser(
      input.endpoint,
      input.timeout_ms,
      'web screenshot',
      context,
      async (run) => {
        const steps = new Steps(run.signal, STEP_MS);
        const opened = await openPage(run.handle, input, {
          loadMs: input.load_timeout_ms,
          steps,
          track: run.track,
          opened: run.opened,
        });
        context.progress.report(`capturing ${opened.target.url}`, 'capture');
        // A tab of REA's own browser that is behind another draws no frame until it is in front (its capture
        // waited about 15 s for one). A tab of an external browser stays where its user put it.
        if (input.endpoint === 'owned' && input.target_id !== undefined)
          await opened.page.send('Page.bringToFront', {});
        const shot = await captureScreenshot(opened.page, input.selector ?? null);
        return { shot, target: opened.target, limitations: steps.limitations };
      },
    );
    const { directory, ...file } = shot;
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('screenshot', { format: 'png' }),
      parameters: {
        endpoint: input.endpoint,
        target_id: input.target_id ?? null,
        url: input.url ?? null,
        selector: input.selector ?? null,
      },
      normalized_result: {
        endpoint: input.endpoint,
        target: { id: target.targetId, url: target.url },
        selector: input.selector ?? null,
        ...file,
      },
      raw_result: null,
      confidence: 'observed' as const,
      limitations,
      coverage:
        limitations.length === 0
          ? { status: 'complete' as const, reasons: [] }
          : { status: 'partial' as const, reasons: [...new Set(limitations.map((l) => l.kind))] },
      locations: [{ kind: 'url' as const, value: target.url }],
      evidence_links: [],
      local: { screenshot_directory: directory },
    };
  },
});
