import { describe, expect, it } from '@jest/globals';
import { advertiseCatalog } from '@rea/schema';
import { createDefaultTools } from 'rea-mcp';
// The precomputed catalog is internal to the package (only `rea mcp` uses it), so it is reached by path.
import { loadAdvertisedCatalog } from '../src/generated/advertisedCatalog.js';

const REGENERATE =
  'Regenerate it with `npm run generate` (node tools/generate.mjs), then commit packages/rea/src/generated/.';

describe('the precomputed advertised catalog of rea mcp', () => {
  it.each(['full', 'compact'] as const)(
    'should equal a fresh projection of the default catalog (%s)',
    async (profile) => {
      const tools = await createDefaultTools();
      const fresh = advertiseCatalog(tools, profile);
      const precomputed = await loadAdvertisedCatalog(profile);
      if (precomputed.digest !== fresh.digest) {
        throw new Error(
          `The tool catalog changed, so the precomputed advertised catalog (${profile}) is stale. ${REGENERATE}`,
        );
      }
      // The digest covers what tools/list sends; the rest (examples, portability, reduced) must match too.
      expect(precomputed).toEqual(fresh);
      expect(precomputed.profile).toBe(profile);
      expect(precomputed.tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    },
  );
});
