import { ReaError } from '@rea/evidence';
import { NATIVE_PORT, sortCatalog } from '@rea/provider-kit';
import type { AnyToolContract, Provider } from '@rea/provider-kit';

/** One default provider: its id and kind, the package it comes from, and how to create it. */
interface ProviderEntry {
  id: string;
  kind: 'deep' | 'tools';
  packageName: string;
  create(): Promise<Provider>;
}

const DEFAULT_PROVIDERS: readonly ProviderEntry[] = [
  {
    id: 'android',
    kind: 'tools',
    packageName: '@rea/provider-android',
    create: async () => (await import('@rea/provider-android')).createAndroidProvider(),
  },
  {
    id: 'android-device',
    kind: 'tools',
    packageName: '@rea/provider-android',
    create: async () => (await import('@rea/provider-android')).createAndroidDeviceProvider(),
  },
  {
    id: 'artifact',
    kind: 'tools',
    packageName: '@rea/artifact',
    create: async () => (await import('@rea/artifact')).createArtifactProvider(),
  },
  {
    id: 'capstone',
    kind: 'deep',
    packageName: '@rea/provider-capstone',
    create: async () => (await import('@rea/provider-capstone')).createCapstoneProvider(),
  },
  {
    id: 'ghidra',
    kind: 'deep',
    packageName: '@rea/provider-ghidra',
    create: async () => (await import('@rea/provider-ghidra')).createGhidraProvider(),
  },
  {
    id: 'hopper',
    kind: 'deep',
    packageName: '@rea/provider-hopper',
    create: async () => (await import('@rea/provider-hopper')).createHopperProvider(),
  },
  {
    id: 'javascript',
    kind: 'tools',
    packageName: '@rea/javascript',
    create: async () => (await import('@rea/javascript')).createJavascriptProvider(),
  },
];

/**
 * Stands in for a provider whose package cannot be loaded (a damaged installation): it contributes no
 * tools, its probe reports why, and opening a target with it is `provider_unavailable` — so `rea
 * doctor` can say what is wrong instead of failing, and the other providers keep working.
 */
function unloadable(entry: ProviderEntry, error: unknown): Provider {
  const cause = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const reason = `${entry.packageName} could not be loaded: ${cause}`;
  const remediation = `Reinstall REA (npm install rea-mcp) so that ${entry.packageName} is complete.`;
  const base = {
    id: entry.id,
    name: entry.packageName,
    version: 'unavailable',
    capabilities: [],
    probe: async () => ({ status: 'unavailable' as const, reason, remediation }),
    tools: () => [],
  };
  if (entry.kind === 'tools') return { ...base, kind: 'tools' };
  return {
    ...base,
    kind: 'deep',
    // Every deep provider REA ships implements the native port.
    port: NATIVE_PORT,
    open: async () => {
      throw new ReaError('provider_unavailable', reason, { remediation, details: { provider_id: entry.id, reason } });
    },
  };
}

/**
 * The default providers, sorted by id: every engine adapter REA ships. Each provider package is
 * imported only when this is called, so commands that need no provider never load one; a package
 * that cannot be loaded is reported by its provider's probe rather than failing the whole list.
 * Creating a provider starts nothing.
 */
export async function createDefaultProviders(): Promise<Provider[]> {
  const providers: Provider[] = [];
  // One import at a time: module graphs that share dependencies load more predictably in sequence.
  for (const entry of DEFAULT_PROVIDERS) {
    try {
      providers.push(await entry.create());
    } catch (error) {
      providers.push(unloadable(entry, error));
    }
  }
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

/**
 * Unpacks a ZIP package into a fresh directory under `parentDirectory` through `@rea/artifact`
 * (unsafe paths refused, executable bits kept, removed on failure) and resolves to its path.
 */
export async function extractZipPackage(path: string, parentDirectory: string, signal: AbortSignal): Promise<string> {
  const { extractArtifact } = await import('@rea/artifact');
  return (await extractArtifact(path, { parentDirectory, signal })).outputDirectory;
}
