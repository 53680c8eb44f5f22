import { createAnalysisProfile } from '@rea/evidence';
import type { JsonObject, ProviderIdentity } from '@rea/evidence';
import { JAVASCRIPT_PACKAGE_VERSION } from '../version.js';

/** The identity recorded as `provider` in JavaScript application Evidence. */
export const JAVASCRIPT_PROVIDER: ProviderIdentity = Object.freeze({
  id: 'javascript',
  name: '@rea/javascript',
  version: JAVASCRIPT_PACKAGE_VERSION,
});

/** The analysis profile of a JavaScript operation: its name and the settings that shaped it. */
export function javascriptProfile(name: string, settings: JsonObject) {
  return createAnalysisProfile({ name: `javascript-${name}`, version: '1', settings });
}
