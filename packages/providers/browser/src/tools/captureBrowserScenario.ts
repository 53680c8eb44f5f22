import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { ReaError, isReaError, normalizeError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { checkPageRequest, openPage } from '../inspect/open.js';
import { Steps } from '../inspect/step.js';
import { checkActions, runAction } from '../scenario/actions.js';
import { observeDom, summarizeDomChanges, takeDomChanges } from '../scenario/domChanges.js';
import { Downloads } from '../scenario/downloads.js';
import { EVENT_BYTES, EventLog } from '../scenario/events.js';
import { scenarioLimitations } from '../scenario/limits.js';
import { ActionSchema, ScenarioCaptureSchema } from '../scenario/schema.js';
import type { ScenarioCapture } from '../scenario/schema.js';
import { BROWSER_PROVIDER, browserProfile, withBrowser } from './common.js';
import { STEP_MS, pageFields } from './pageInput.js';

/** How many bytes of downloads a scenario keeps when the request does not say. */
const DOWNLOAD_BYTES = 64 * 1024 * 1024;

/** `capture_browser_scenario`: runs declared actions on a page and captures what happened. */
export const captureBrowserScenarioTool = defineTool({
  name: 'capture_browser_scenario',
  title: 'Capture browser scenario',
  description:
    'Runs declared actions (navigate, click, type, press, select, wait_for_selector, wait_for_network_idle, wait_for_downloads, wait, scroll, screenshot) on a page and captures the ordered events (requests, responses, console, navigations, DOM changes, dialogs, downloads) within a byte budget, each action outcome and its DOM changes, downloads kept complete with SHA-256 within a byte budget, and PNG screenshots in fresh directories. A failing action keeps the capture in details.partial_observation.',
  input: z.strictObject({
    ...pageFields,
    actions: z.array(ActionSchema).min(1).max(100).describe('The actions, run in order.'),
    max_event_bytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(EVENT_BYTES)
      .describe('Events kept, in bytes of JSON (default 4 MiB); later ones are counted.'),
    max_download_bytes: z
      .number()
      .int()
      .min(0)
      .max(1024 * 1024 * 1024)
      .default(DOWNLOAD_BYTES)
      .describe('"owned": bytes of downloads kept in all (default 64 MiB; 0 refuses downloads).'),
  }),
  result: ScenarioCaptureSchema,
  examples: [
    {
      input: {
        endpoint: 'owned',
        url: 'http://127.0.0.1:8080/',
        actions: [
          { action: 'type', selector: '#q', text: 'notes' },
          { action: 'press', key: 'Enter' },
          { action: 'wait_for_network_idle', idle_ms: 500, timeout_ms: 10_000 },
          { action: 'screenshot' },
        ],
      },
      description: 'Search on a local page and capture what it requests.',
    },
  ],
  effects: {
    ...RECORDS_EVIDENCE,
    idempotent: false,
    openWorld: true,
    launchesProcess: true,
    executesForeignCode: true,
    writesFilesystem: true,
  },
  produces: 'evidence',
  run: async (input, context) => {
    checkPageRequest(input, context);
    checkActions(input.actions);
    const log = new EventLog(input.max_event_bytes);
    const capture: ScenarioCapture = {
      endpoint: input.endpoint,
      target: { id: '', url: input.url ?? '' },
      actions: input.actions.map((a, index) => ({
        index,
        action: a.action,
        outcome: 'not-run' as const,
        detail: '',
        first_event: null,
        last_event: null,
      })),
      events: log.events,
      events_total: 0,
      screenshots: [],
      dom_changes: [],
      downloads: [],
    };
    let shots: string | null = null;
    let downloads: Downloads | null = null;
    let steps: Steps | null = null;
    try {
      await withBrowser(input.endpoint, input.timeout_ms, 'browser scenario', context, async (run) => {
        steps = new Steps(run.signal, STEP_MS);
        const opened = await openPage(run.handle, input, {
          loadMs: input.load_timeout_ms,
          steps,
          track: run.track,
          opened: run.opened,
          beforeLoad: async (page) => {
            log.listen(page);
            downloads = new Downloads(
              run.handle.browser,
              log,
              await context.supervisor.createTempDir('downloads'),
              input.max_download_bytes,
            );
            capture.downloads = downloads.list;
            await downloads.start();
            await observeDom(page);
          },
          // A url that is a download is recorded as one, before the first action; the tab stays blank.
          onDownload: () => (downloads as Downloads | null)?.whenBegun(null) ?? Promise.resolve(),
        });
        const page = opened.page;
        if (!opened.fresh) {
          log.listen(page);
          await steps.run('dom-unobserved', 'DOM change observer', () => observeDom(page));
        }
        // Changes made while the page loaded are not any action's.
        await steps.run('dom-unanswered', 'DOM changes before the first action', () => takeDomChanges(page));
        capture.target = { id: opened.target.targetId, url: opened.target.url };
        for (const [index, action] of input.actions.entries()) {
          context.progress.report(`action ${index + 1} of ${input.actions.length}: ${action.action}`, 'action');
          log.action = index;
          const entry = capture.actions[index]!;
          const first = log.total;
          try {
            const detail = await runAction(action, {
              page,
              log,
              signal: run.signal,
              loadMs: input.load_timeout_ms,
              screenshotDir: () => (shots ??= mkdtempSync(join(tmpdir(), 'rea-browser-shots-'))),
              onLoad: (listener) => opened.recording.onLoad.push(listener),
              downloads,
            });
            const changes = await steps.run('dom-unanswered', `DOM changes of action ${index}`, () =>
              takeDomChanges(page),
            );
            if (changes) {
              capture.dom_changes.push({ action: index, ...changes });
              log.add('dom', summarizeDomChanges(changes));
            }
            if (action.action === 'screenshot') {
              // The screenshot is named by the SHA-256 of its bytes.
              capture.screenshots.push({
                action: index,
                path: detail,
                sha256: basename(detail, '.png'),
                size: statSync(detail).size,
              });
            }
            Object.assign(entry, { outcome: 'ok', detail: action.action === 'screenshot' ? 'captured' : detail });
          } catch (error) {
            // An action stopped by cancellation, the deadline or a lost browser did not complete either.
            const cause: unknown = run.signal.aborted ? run.signal.reason : error;
            Object.assign(entry, { outcome: 'failed', detail: cause instanceof Error ? cause.message : String(cause) });
            throw cause;
          } finally {
            if (log.total > first) Object.assign(entry, { first_event: first, last_event: log.total - 1 });
            capture.events_total = log.total;
          }
        }
        log.action = null;
        await (downloads as Downloads | null)?.end();
      });
    } catch (error) {
      await (downloads as Downloads | null)?.end();
      log.stop();
      capture.events_total = log.total;
      const failure = isReaError(error) ? error : normalizeError(error, 'capture_browser_scenario');
      throw new ReaError(failure.code, failure.message, {
        remediation: failure.remediation,
        details: { ...failure.details, partial_observation: capture as unknown as JsonObject },
      });
    }
    // Events of the page closing after the last action are not part of the capture.
    log.stop();
    capture.events_total = log.total;
    const limitations = [
      ...((steps as Steps | null)?.limitations ?? []),
      ...scenarioLimitations(capture, log, downloads),
    ];
    const kept = (downloads as Downloads | null)?.directory ?? null;
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('scenario', {
        max_event_bytes: input.max_event_bytes,
        max_download_bytes: input.max_download_bytes,
      }),
      parameters: {
        endpoint: input.endpoint,
        target_id: input.target_id ?? null,
        url: input.url ?? null,
        actions: input.actions as unknown as JsonObject[],
      },
      normalized_result: capture,
      raw_result: null,
      confidence: 'observed' as const,
      limitations,
      coverage:
        limitations.length > 0
          ? { status: 'partial' as const, reasons: [...new Set(limitations.map((l) => l.kind))] }
          : { status: 'complete' as const, reasons: [] },
      locations: [{ kind: 'url' as const, value: capture.target.url }],
      evidence_links: [],
      ...(shots || kept
        ? {
            local: { ...(shots ? { screenshot_directory: shots } : {}), ...(kept ? { download_directory: kept } : {}) },
          }
        : {}),
    };
  },
});
