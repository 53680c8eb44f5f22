import type { AdvertisedCatalog } from '@rea/schema';
import type { JsonObject } from '@rea/evidence';

/** Why `advertised` does not describe the tools named `expected` in `profile`, or null when it does. */
export function staleness(
  advertised: AdvertisedCatalog,
  expected: readonly string[],
  profile: string,
): JsonObject | null {
  const names = advertised.tools.map((tool) => tool.name);
  if (advertised.profile === profile && names.join('\n') === expected.join('\n')) return null;
  return {
    reason: 'stale-advertised-catalog',
    profile: advertised.profile,
    expected_profile: profile,
    missing: expected.filter((name) => !names.includes(name)),
    unexpected: names.filter((name) => !expected.includes(name)),
  };
}

/** The message of a stale precomputed catalog. */
export const STALE_MESSAGE = "The precomputed advertised catalog does not match this server's catalog.";
/** The remediation of a stale precomputed catalog. */
export const STALE_REMEDIATION = 'Regenerate the advertised catalog from the current tool contracts, or omit it.';
