import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createAnalysisProfile } from '@rea/evidence';
import type { JsonObject, ProviderIdentity } from '@rea/evidence';

/** This package's version as its installed manifest states it (bundled or installed alike). */
export const LLDB_PROVIDER_VERSION: string = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@rea/provider-lldb/package.json'), 'utf8')) as {
    version: string;
  }
).version;

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
