// REA's own scripts in a page (its reads through Runtime.evaluate and the instrumentation it installs
// before the page's scripts) carry one source URL, so the observation can tell them from the page's.
import type { CdpParams } from './engine/cdp.js';

/** The source URL DevTools reports for every script REA itself runs in a page. */
export const INTERNAL_SCRIPT_URL = 'rea-internal:///provider-browser.js';

const MARK = `\n//# sourceURL=${INTERNAL_SCRIPT_URL}`;

/**
 * `params` of a DevTools command with the script it runs in the page marked as REA's own
 * (`Runtime.evaluate`'s expression, `Page.addScriptToEvaluateOnNewDocument`'s source); other
 * commands' parameters unchanged.
 */
export function markInternalScript(method: string, params: CdpParams): CdpParams {
  if (method === 'Runtime.evaluate' && typeof params['expression'] === 'string')
    return { ...params, expression: `${params['expression']}${MARK}` };
  if (method === 'Page.addScriptToEvaluateOnNewDocument' && typeof params['source'] === 'string')
    return { ...params, source: `${params['source']}${MARK}` };
  return params;
}
