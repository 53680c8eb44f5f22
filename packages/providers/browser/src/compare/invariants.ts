import { ReaError } from '@rea/evidence';
import type { ScenarioCapture } from '../scenario/schema.js';

function broken(field: string, problem: string): ReaError {
  return new ReaError('invalid_request', `${field} is not a consistent capture_browser_scenario result: ${problem}.`, {
    details: { reason: 'inconsistent-capture', field, problem },
    remediation:
      'Pass the normalized_result exactly as capture_browser_scenario returned it, or its retained reference.',
  });
}

/**
 * The cross-field invariants a schema cannot state: events in strictly increasing seq below
 * events_total and no more kept than observed; each action's event range inside the observed events
 * and naming that action; screenshots, DOM change summaries and downloads of existing actions.
 */
export function checkScenario(capture: ScenarioCapture, field: string): void {
  if (capture.events.length > capture.events_total) throw broken(field, 'more events kept than events_total');
  let previous = -1;
  for (const event of capture.events) {
    if (event.seq <= previous) throw broken(field, `event seq ${event.seq} does not increase`);
    if (event.seq >= capture.events_total) throw broken(field, `event seq ${event.seq} is not below events_total`);
    if (event.action !== null && event.action >= capture.actions.length)
      throw broken(field, `event ${event.seq} names action ${event.action}, which does not exist`);
    previous = event.seq;
  }
  capture.actions.forEach((action, index) => {
    if (action.index !== index) throw broken(field, `action ${index} has index ${action.index}`);
    if ((action.first_event === null) !== (action.last_event === null))
      throw broken(field, `action ${index} has half an event range`);
    if (
      action.first_event !== null &&
      (action.first_event > action.last_event! || action.last_event! >= capture.events_total)
    )
      throw broken(
        field,
        `action ${index} has event range ${action.first_event}–${action.last_event} outside the ${capture.events_total} observed`,
      );
  });
  const named = [
    ...capture.screenshots.map((s) => ['a screenshot', s.action] as const),
    ...capture.dom_changes.map((d) => ['a DOM change summary', d.action] as const),
    ...capture.downloads.map((d) => ['a download', d.action] as const),
  ];
  for (const [what, action] of named)
    if (action !== null && action >= capture.actions.length)
      throw broken(field, `${what} names action ${action}, which does not exist`);
}
