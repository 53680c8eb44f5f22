import { createAnalysisProfile } from '@rea/evidence';
import type { JsonObject, ProviderIdentity } from '@rea/evidence';
import { packageVersion } from '@rea/provider-kit';

/** This package's version as its installed manifest states it (bundled or installed alike; a bundle states it at build time). */
export const LLDB_PROVIDER_VERSION: string = packageVersion(import.meta.url, '@rea/provider-lldb');

/** The identity recorded as `provider` in this package's Evidence. */
export const LLDB_PROVIDER: ProviderIdentity = Object.freeze({
  id: 'lldb',
  name: '@rea/provider-lldb',
  version: LLDB_PROVIDER_VERSION,
});

/** The analysis profile of one operation: its name and the settings that shaped it. */
export function lldbProfile(name: string, settings: JsonObject) {
  return createAnalysisProfile({ name: `lldb-${name}`, version: '1', settings });
}
