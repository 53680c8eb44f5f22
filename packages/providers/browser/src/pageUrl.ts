import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';

/** The schemes of a URL REA loads in a page: the `url` input and a scenario's `navigate` actions. */
export const PAGE_URL_SCHEMES = Object.freeze(['http:', 'https:', 'file:', 'about:', 'data:']);

/**
 * Refuses a URL REA would load that is not an http, https, file, about or data URL (`javascript:`,
 * `chrome:`, `view-source:`, text that is no URL): `invalid_request` with `details.reason:
 * "invalid-url"`, the URL, the accepted schemes and `details` of the caller. `what` names the field.
 */
export function checkPageUrl(url: string, what: string, details: JsonObject = {}): void {
  let scheme = '';
  try {
    scheme = new URL(url).protocol;
  } catch {
    // not a URL: refused below
  }
  if (PAGE_URL_SCHEMES.includes(scheme)) return;
  throw new ReaError('invalid_request', `${what} "${url}" is not an http, https, file, about or data URL.`, {
    details: { reason: 'invalid-url', ...details, url, accepted: [...PAGE_URL_SCHEMES] },
    remediation: 'Pass an http(s), file, about or data URL; REA does not run javascript: URLs or open browser pages.',
  });
}
