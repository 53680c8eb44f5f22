import { renderHelp } from '@rea/cli';
import { createReaHost } from './host.js';

/**
 * The `rea --help` text for the default catalog, computed (loads every provider's tools). The bin
 * prints the precomputed copy in `help.ts`; regenerate it with `node packages/rea/scripts/help.mjs`
 * after a build whenever the catalog changes (a test fails until it matches).
 */
export async function renderHelpText(): Promise<string> {
  const host = createReaHost({ script: undefined });
  return renderHelp(host, await host.loadTools());
}
