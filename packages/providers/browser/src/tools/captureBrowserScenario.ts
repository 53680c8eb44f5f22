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
import { EventLog, MAX_EVENTS } from '../scenario/events.js';
import { ActionSchema, ScenarioCaptureSchema } from '../scenario/schema.js';
import type { ScenarioCapture } from '../scenario/schema.js';
import { BROWSER_PROVIDER, browserProfile, withBrowser } from './common.js';
import { STEP_MS, pageFields } from './pageInput.js';

const ELEMENTS = "document.getElementsByTagName('*').length";

/** `capture_browser_scenario`: runs declared actions on a page and captures what happened. */
export const captureBrowserScenarioTool = defineTool({
  name: 'capture_browser_scenario',
  title: 'Capture browser scenario',
  description:
    'Runs declared actions (navigate, click, type, press, select, wait_for_selector, wait_for_network_idle, wait, scroll, screenshot) on a page and captures the ordered events (requests, responses, console, navigations, DOM size, dialogs, downloads), each action outcome and PNG screenshots written to a fresh directory. A failing action keeps the capture in details.partial_observation.',
  input: z.strictObject({
    ...pageFields,
    actions: z.array(ActionSchema).min(1).max(100).describe('The actions, run in order.'),
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
    const log = new EventLog();
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
    };
    let shots: string | null = null;
    try {
      await withBrowser(input.endpoint, input.timeout_ms, 'browser scenario', context, async (run) => {
        const steps = new Steps(run.signal, STEP_MS);
        const opened = await openPage(run.handle, input, {
          loadMs: input.load_timeout_ms,
          steps,
          track: run.track,
          beforeLoad: async (page) => {
            log.listen(page, run.handle.browser);
            await run.handle.browser
              .send('Browser.setDownloadBehavior', { behavior: 'deny', eventsEnabled: true })
              .catch(() => undefined);
          },
        });
        if (!opened.fresh) log.listen(opened.page, run.handle.browser);
        capture.target = { id: opened.target.targetId, url: opened.target.url };
        for (const [index, action] of input.actions.entries()) {
          context.progress.report(`action ${index + 1} of ${input.actions.length}: ${action.action}`, 'action');
          log.action = index;
          const entry = capture.actions[index]!;
          const first = log.total;
          try {
            const detail = await runAction(action, {
              page: opened.page,
              log,
              signal: run.signal,
              loadMs: input.load_timeout_ms,
              screenshotDir: () => (shots ??= mkdtempSync(join(tmpdir(), 'rea-browser-shots-'))),
              onLoad: (listener) => opened.recording.onLoad.push(listener),
            });
            const elements = await steps.run('dom-unanswered', `DOM size after action ${index}`, () =>
              opened.page.send('Runtime.evaluate', { expression: ELEMENTS, returnByValue: true, silent: true }),
            );
            if (elements) log.add('dom', `elements: ${String((elements['result'] as { value?: unknown }).value)}`);
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
            if (run.signal.aborted) throw run.signal.reason;
            Object.assign(entry, { outcome: 'failed', detail: error instanceof Error ? error.message : String(error) });
            throw error;
          } finally {
            if (log.total > first) Object.assign(entry, { first_event: first, last_event: log.total - 1 });
            capture.events_total = log.total;
          }
        }
      });
    } catch (error) {
      const failure = isReaError(error) ? error : normalizeError(error, 'capture_browser_scenario');
      throw new ReaError(failure.code, failure.message, {
        remediation: failure.remediation,
        details: { ...failure.details, partial_observation: capture as unknown as JsonObject },
      });
    }
    const limitations =
      log.total > MAX_EVENTS
        ? [
            {
              kind: 'budget-reached',
              message: `${log.total - MAX_EVENTS} events past the first ${MAX_EVENTS} are counted, not kept.`,
              scope: 'events',
            },
          ]
        : [];
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('scenario', { max_events: MAX_EVENTS }),
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
          ? { status: 'partial' as const, reasons: ['events cut'] }
          : { status: 'complete' as const, reasons: [] },
      locations: [{ kind: 'url' as const, value: capture.target.url }],
      evidence_links: [],
      ...(shots ? { local: { screenshot_directory: shots } } : {}),
    };
  },
});
