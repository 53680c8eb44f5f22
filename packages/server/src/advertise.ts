import type { AdvertisedCatalog, SchemaProfile } from '@rea/schema';
import type { AnyToolContract } from '@rea/provider-kit';

/**
 * The advertised catalog of `tools` in `profile`, projected by @rea/schema (loaded on first use): the
 * server advertises these schemas verbatim and never lets the SDK convert zod itself.
 */
export async function advertiseCatalog(
  tools: readonly AnyToolContract[],
  profile: SchemaProfile,
): Promise<AdvertisedCatalog> {
  const { advertiseCatalog: project } = await import('@rea/schema');
  return project(tools, profile);
}
