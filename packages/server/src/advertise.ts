import { advertiseCatalog as project } from '@rea/schema';
import type { AdvertisedCatalog, SchemaProfile } from '@rea/schema';
import type { AnyToolContract } from '@rea/provider-kit';

/**
 * The advertised catalog of `tools` in `profile`, projected by @rea/schema: the server advertises these
 * schemas verbatim and never lets the SDK convert zod itself.
 */
export function advertiseCatalog(tools: readonly AnyToolContract[], profile: SchemaProfile): AdvertisedCatalog {
  return project(tools, profile);
}
