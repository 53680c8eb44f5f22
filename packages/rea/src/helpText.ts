import { renderHelp } from '@rea/cli';
import { createReaHost } from './host.js';

/**
 * The `rea --help` text for the default catalog, computed (loads every provider's tools). The bin
 * prints the precomputed copy in `help.ts`; regenerate it with `npm run generate` whenever the
 * catalog changes (a test fails until it matches).
 */
export async function renderHelpText(): Promise<string> {
  const host = createReaHost({ script: undefined });
  return renderHelp(host, await host.loadTools());
}
