import type { Limitation } from '@rea/evidence';
import type { Downloads } from './downloads.js';
import type { EventLog } from './events.js';
import type { ScenarioCapture } from './schema.js';
import { MAX_DOM_CHANGES } from './domChanges.js';

/** The budgets a scenario ran into and what it could not observe, as limitations. */
export function scenarioLimitations(
  capture: ScenarioCapture,
  log: EventLog,
  downloads: Downloads | null,
): Limitation[] {
  const out: Limitation[] = [];
  if (log.dropped > 0)
    out.push({
      kind: 'budget-reached',
      message: `${log.dropped} events (${log.droppedBytes} bytes as JSON) past the budget of ${log.budget} bytes are counted, not kept.`,
      scope: 'events',
    });
  const cut = capture.dom_changes.filter((d) => d.truncated).map((d) => d.action);
  if (cut.length > 0)
    out.push({
      kind: 'budget-reached',
      message: `DOM changes past the first ${MAX_DOM_CHANGES} of action(s) ${cut.join(', ')} are counted, not listed.`,
      scope: 'dom',
    });
  const count = (outcome: ScenarioCapture['downloads'][number]['outcome']) =>
    capture.downloads.filter((d) => d.outcome === outcome).length;
  if (count('over-budget') > 0)
    out.push({
      kind: 'budget-reached',
      message: `${count('over-budget')} downloads would have passed the budget of ${downloads?.budget ?? 0} bytes: cancelled, not kept.`,
      scope: 'downloads',
    });
  if (count('incomplete') > 0)
    out.push({
      kind: 'download-incomplete',
      message: `${count('incomplete')} downloads had not finished when the scenario ended: cancelled, not kept.`,
      scope: 'downloads',
    });
  if (count('refused') > 0)
    out.push({
      kind: 'downloads-refused',
      message: `${count('refused')} downloads were refused: max_download_bytes is 0.`,
      scope: 'downloads',
    });
  if (downloads === null)
    out.push({
      kind: 'downloads-unobserved',
      message:
        "Downloads are observed only on a page REA loads itself (url); on an existing target they are left to the browser's own settings.",
      scope: 'downloads',
    });
  return out;
}
