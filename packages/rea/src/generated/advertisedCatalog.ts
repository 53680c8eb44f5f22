import type { ReaServerOptions } from '@rea/server';

/** The advertised catalog of one input schema profile, as the MCP server takes it precomputed. */
export type AdvertisedCatalog = NonNullable<ReaServerOptions['advertised']>;

/**
 * The advertised catalog of the default composition in `profile`, precomputed by
 * tools/generate.mjs (a staleness test compares it to a fresh projection).
 * Only the requested profile's module is loaded.
 */
export async function loadAdvertisedCatalog(profile: AdvertisedCatalog['profile']): Promise<AdvertisedCatalog> {
  if (profile === 'compact') return (await import('./advertisedCompact.js')).ADVERTISED_COMPACT;
  return (await import('./advertisedFull.js')).ADVERTISED_FULL;
}
