import { sortCatalog } from '@rea/provider-kit';
import type { AnyToolContract, Provider } from '@rea/provider-kit';

/**
 * The default providers, sorted by id: every engine adapter REA ships. Each provider package is
 * imported only when this is called, so commands that need no provider never load one. Creating a
 * provider starts nothing.
 */
export async function createDefaultProviders(): Promise<Provider[]> {
  // One import at a time: module graphs that share dependencies load more predictably in sequence.
  const { createArtifactProvider } = await import('@rea/artifact');
  const { createCapstoneProvider } = await import('@rea/provider-capstone');
  const providers: Provider[] = [createArtifactProvider(), createCapstoneProvider()];
  return providers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Tools that belong to no single provider but to the composition: the engine-neutral native tools,
 * which run on whichever deep provider the session is bound to.
 */
export async function createCompositionTools(): Promise<AnyToolContract[]> {
  const { createNativeTools } = await import('@rea/native');
  return createNativeTools();
}

/**
 * The complete sorted tool catalog — the server's own tools, the composition tools and every
 * provider's tools — exactly as the MCP server advertises it and the CLI generates commands for.
 * Pass the providers to reuse them; otherwise the default providers are created.
 */
export async function createDefaultTools(providers?: readonly Provider[]): Promise<AnyToolContract[]> {
  const chosen = providers ?? (await createDefaultProviders());
  const composition = await createCompositionTools();
  const { SERVER_TOOLS } = await import('@rea/server');
  return sortCatalog([...SERVER_TOOLS, ...composition, ...chosen.flatMap((provider) => provider.tools())]);
}
