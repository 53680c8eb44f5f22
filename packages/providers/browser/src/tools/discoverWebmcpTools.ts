import { z } from 'zod';
import { JsonValueSchema } from '@rea/evidence';
import type { JsonValue } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { CdpConnection } from '../engine/cdp.js';
import { checkPageRequest, openPage } from '../inspect/open.js';
import { Steps } from '../inspect/step.js';
import { WEBMCP_INSTRUMENTATION, WEBMCP_READ } from '../inspect/webmcp.js';
import { readNativeWebmcp } from '../inspect/webmcpNative.js';
import { originAllowed } from '../origins.js';
import { BROWSER_PROVIDER, browserProfile, originsSchema, withBrowser } from './common.js';
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
  children: number;
  /** `modelContext` objects the page has that the instrumentation did not wrap (defined by the page itself). */
  unwrapped: string[];
  frame: string;
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

interface FrameNode {
  frame: { id: string; url: string };
  childFrames?: FrameNode[];
}

/** The frames of the page below its main frame, as the page's frame tree lists them (a limitation when unread). */
async function childFrames(page: CdpConnection, steps: Steps): Promise<Array<{ id: string; url: string }>> {
  const tree = await steps.run('frames-unread', 'frame tree', () => page.send('Page.getFrameTree'));
  const out: Array<{ id: string; url: string }> = [];
  const walk = (node: FrameNode) =>
    node.childFrames?.forEach((child) => (out.push({ id: child.frame.id, url: child.frame.url }), walk(child)));
  const root = tree?.['frameTree'] as FrameNode | undefined;
  if (root) walk(root);
  return out;
}

/** `discover_webmcp_tools`: the tools a page offers to agents through WebMCP. */
export const discoverWebmcpToolsTool = defineTool({
  name: 'discover_webmcp_tools',
  title: 'Discover WebMCP tools',
  description:
    'Lists the tools a page offers to agents through WebMCP: those the browser itself reports (Chromium\'s WebMCP surface, on in "owned"), imperative registerTool/provideContext calls on the navigator/document.modelContext the browser offers (observed by instrumentation installed before the page scripts, which adds no API: always with url, with reload on an existing target) and declarative <form toolname> forms. Each with name, description, input schema, source, observed_by, frame and origin.',
  input: z.strictObject({
    ...pageFields,
    origins: originsSchema('only tools of frames of one of them.'),
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
          opened: run.opened,
          beforeLoad: instrument,
        });
        if (!opened.fresh && input.reload) {
          await instrument(opened.page);
          const loaded = new Promise<void>((resolve) => opened.recording.onLoad.push(resolve));
          await opened.page.send('Page.reload', {});
          await steps.settleWithin(loaded, input.load_timeout_ms);
        }
        const readIn = async (what: string, contextId?: number) => {
          const evaluated = await steps.run('page-unanswered', what, () =>
            opened.page.send('Runtime.evaluate', {
              expression: WEBMCP_READ,
              returnByValue: true,
              silent: true,
              ...(contextId === undefined ? {} : { contextId }),
            }),
          );
          return ((evaluated?.['result'] as { value?: Read } | undefined)?.value ?? null) as Read | null;
        };
        const read = await readIn('WebMCP registrations and forms');
        // Every other frame of the page's process is read in its own page context; a frame with none
        // here runs in another renderer process (an out-of-process iframe).
        const frames = await childFrames(opened.page, steps);
        const inFrames: Read[] = [];
        const elsewhere: string[] = [];
        for (const frame of frames) {
          const contextId = opened.recording.contexts.get(frame.id);
          if (contextId === undefined) elsewhere.push(frame.url);
          else {
            const got = await readIn(`WebMCP registrations and forms of frame ${frame.url}`, contextId);
            if (got) inFrames.push(got);
          }
        }
        if (read && read.imperative === null)
          steps.limit(
            'imperative-unobserved',
            'Imperative registrations are observed only from a load with the instrumentation: pass url (owned browser) or reload: true.',
          );
        // The instrumentation wraps only what the browser offers; a modelContext the page defined itself
        // (a polyfill) is there to use, but what was registered through it was not seen.
        for (const r of [read, ...inFrames])
          if (r && r.imperative !== null && r.unwrapped.length > 0)
            steps.limit(
              'imperative-unobserved',
              `${r.unwrapped.join(' and ')} in ${r.frame} ${r.unwrapped.length > 1 ? 'are' : 'is'} the page's own (not offered by the browser): registrations through it are not observed.`,
            );
        // The page's process lists only its own frames: the documents read count every child frame.
        const children = [read, ...inFrames].reduce((n, r) => n + (r?.children ?? 0), 0);
        const unread = elsewhere.length + Math.max(0, children - frames.length);
        if (unread > 0)
          steps.limit(
            'out-of-process-frames',
            `${unread} frame(s) in other renderer processes (out-of-process iframes) are not instrumented or read${elsewhere.length > 0 ? `: ${elsewhere.slice(0, 5).join(', ')}` : ''}.`,
          );
        const native = await readNativeWebmcp(opened.page, steps);
        const tools = mergeTools([
          ...native.tools.map((t) => ({ ...t, by: 'browser' as const })),
          ...[read, ...inFrames].flatMap((r) =>
            (r?.imperative ?? []).map(({ via: _via, ...t }) => ({
              ...t,
              source: 'imperative' as const,
              by: 'instrumentation' as const,
            })),
          ),
          ...[read, ...inFrames].flatMap((r) =>
            (r?.declarative ?? []).map((t) => ({ ...t, source: 'declarative' as const, by: 'form-scan' as const })),
          ),
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
      coverage:
        limitations.length > 0
          ? { status: 'partial' as const, reasons: [...new Set(limitations.map((l) => l.kind))] }
          : { status: 'complete' as const, reasons: [] },
      locations: [{ kind: 'url' as const, value: result.target.url }],
      evidence_links: [],
    };
  },
});
