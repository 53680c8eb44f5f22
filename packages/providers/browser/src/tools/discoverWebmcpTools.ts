import { z } from 'zod';
import { JsonValueSchema } from '@rea/evidence';
import type { JsonValue } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { checkPageRequest, openPage } from '../inspect/open.js';
import { Steps } from '../inspect/step.js';
import { WEBMCP_INSTRUMENTATION, WEBMCP_READ } from '../inspect/webmcp.js';
import { readNativeWebmcp } from '../inspect/webmcpNative.js';
import { originAllowed } from '../origins.js';
import { BROWSER_PROVIDER, browserProfile, withBrowser } from './common.js';
import { STEP_MS, pageFields } from './pageInput.js';

const WebmcpToolSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  input_schema: JsonValueSchema,
  source: z.enum(['imperative', 'declarative']),
  observed_by: z.array(z.enum(['browser', 'instrumentation', 'form-scan'])),
  frame: z.string(),
  origin: z.string(),
});

type WebmcpTool = z.infer<typeof WebmcpToolSchema>;

/** `normalized_result` of `discover_webmcp_tools`. */
export const WebmcpDiscoverySchema = z.strictObject({
  endpoint: z.string(),
  target: z.strictObject({ id: z.string(), url: z.string() }),
  instrumented: z.boolean(),
  browser_surface: z.boolean(),
  tools: z.array(WebmcpToolSchema),
});

interface Read {
  imperative: Array<{
    via: string;
    name: string;
    description: string;
    input_schema: unknown;
    frame: string;
    origin: string;
  }> | null;
  declarative: Array<{ name: string; description: string; input_schema: unknown; frame: string; origin: string }>;
}

type Observer = 'browser' | 'instrumentation' | 'form-scan';
type Found = Omit<WebmcpTool, 'observed_by' | 'input_schema'> & { input_schema: unknown; by: Observer };

/** One entry per tool (source, frame, name), naming every way it was observed; first seen first. */
function mergeTools(found: readonly Found[]): WebmcpTool[] {
  const merged = new Map<string, WebmcpTool>();
  for (const { by, ...tool } of found) {
    const key = `${tool.source}\0${tool.frame}\0${tool.name}`;
    const seen = merged.get(key);
    if (seen === undefined)
      merged.set(key, { ...tool, input_schema: tool.input_schema as JsonValue, observed_by: [by] });
    else if (!seen.observed_by.includes(by)) seen.observed_by.push(by);
  }
  return [...merged.values()];
}

/** `discover_webmcp_tools`: the tools a page offers to agents through WebMCP. */
export const discoverWebmcpToolsTool = defineTool({
  name: 'discover_webmcp_tools',
  title: 'Discover WebMCP tools',
  description:
    'Lists the tools a page offers to agents through WebMCP: those the browser itself reports (Chromium\'s WebMCP surface, on in "owned"), imperative navigator/document.modelContext registerTool/provideContext calls (observed by instrumentation installed before the page scripts: always with url, with reload on an existing target) and declarative <form toolname> forms. Each with name, description, input schema, source, observed_by, frame and origin.',
  input: z.strictObject({
    ...pageFields,
    reload: z
      .boolean()
      .default(false)
      .describe('External target only: reload it once with the instrumentation, to observe imperative registrations.'),
  }),
  result: WebmcpDiscoverySchema,
  examples: [
    { input: { endpoint: 'owned', url: 'http://127.0.0.1:8080/' }, description: 'The WebMCP tools of a local page.' },
  ],
  effects: { ...RECORDS_EVIDENCE, idempotent: false, openWorld: true, launchesProcess: true },
  produces: 'evidence',
  run: async (input, context) => {
    checkPageRequest(input, context);
    const { result, limitations } = await withBrowser(
      input.endpoint,
      input.timeout_ms,
      'WebMCP discovery',
      context,
      async (run) => {
        const steps = new Steps(run.signal, STEP_MS);
        const instrument = async (page: { send(m: string, p?: Record<string, unknown>): Promise<unknown> }) => {
          await page.send('Page.addScriptToEvaluateOnNewDocument', { source: WEBMCP_INSTRUMENTATION });
        };
        const opened = await openPage(run.handle, input, {
          loadMs: input.load_timeout_ms,
          steps,
          track: run.track,
          beforeLoad: instrument,
        });
        if (!opened.fresh && input.reload) {
          await instrument(opened.page);
          const loaded = new Promise<void>((resolve) => opened.recording.onLoad.push(resolve));
          await opened.page.send('Page.reload', {});
          await steps.settleWithin(loaded, input.load_timeout_ms);
        }
        const evaluated = await steps.run('page-unanswered', 'WebMCP registrations and forms', () =>
          opened.page.send('Runtime.evaluate', { expression: WEBMCP_READ, returnByValue: true, silent: true }),
        );
        const read = ((evaluated?.['result'] as { value?: Read } | undefined)?.value ?? null) as Read | null;
        if (read && read.imperative === null)
          steps.limit(
            'imperative-unobserved',
            'Imperative registrations are observed only from a load with the instrumentation: pass url (owned browser) or reload: true.',
          );
        steps.limit(
          'same-process-frames',
          'Frames in other renderer processes (out-of-process iframes) are not instrumented or read.',
        );
        const native = await readNativeWebmcp(opened.page, steps);
        const tools = mergeTools([
          ...native.tools.map((t) => ({ ...t, by: 'browser' as const })),
          ...(read?.imperative ?? []).map(({ via: _via, ...t }) => ({
            ...t,
            source: 'imperative' as const,
            by: 'instrumentation' as const,
          })),
          ...(read?.declarative ?? []).map((t) => ({ ...t, source: 'declarative' as const, by: 'form-scan' as const })),
        ]).filter((t) => originAllowed(t.frame, input.origins));
        return {
          result: {
            endpoint: input.endpoint,
            target: { id: opened.target.targetId, url: opened.target.url },
            instrumented: read?.imperative != null,
            browser_surface: native.available,
            tools,
          },
          limitations: steps.limitations,
        };
      },
    );
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('webmcp', { reload: input.reload }),
      parameters: {
        endpoint: input.endpoint,
        target_id: input.target_id ?? null,
        url: input.url ?? null,
        origins: input.origins ?? null,
      },
      normalized_result: result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations,
      coverage: { status: 'partial' as const, reasons: [...new Set(limitations.map((l) => l.kind))] },
      locations: [{ kind: 'url' as const, value: result.target.url }],
      evidence_links: [],
    };
  },
});
