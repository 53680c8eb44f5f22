/**
 * The environment variables the browser provider reads. A module of its own
 * (`@rea/provider-browser/settings`) that loads nothing of the engine, so a host can validate them at
 * startup without loading the provider.
 */
import { defineSettings, integerSetting, pathSetting } from '@rea/provider-kit';

/** How long an owned Chromium may take to announce its DevTools port when nothing says otherwise, in ms. */
export const BROWSER_START_TIMEOUT_MS = 30_000;

/** The browser provider's settings: `REA_CHROME_PATH` and `REA_BROWSER_START_TIMEOUT_MS`. */
export const BROWSER_SETTINGS = defineSettings('browser', {
  chromePath: pathSetting(
    'REA_CHROME_PATH',
    'The Chromium or Chrome executable REA starts for endpoint "owned"; unset, chromium, chromium-browser, then google-chrome on PATH.',
  ),
  browserStartTimeoutMs: integerSetting('REA_BROWSER_START_TIMEOUT_MS', {
    fallback: BROWSER_START_TIMEOUT_MS,
    min: 1,
    max: 2_147_483_647,
    description: 'Deadline for an owned headless Chromium to start and announce its DevTools port, in ms.',
  }),
});
