import { ReaError } from '@rea/evidence';
import { NATIVE_PORT, sortCatalog } from '@rea/provider-kit';
import type { AnyToolContract, Provider, ToolFacts } from '@rea/provider-kit';
import { loadNativeTools, nativeAvailability } from '@rea/native/core';
import type { DeferredTools } from '@rea/server/serve';

/** One default provider: its id and kind, the package it comes from, and how to create it. */
interface ProviderEntry {
  id: string;
  kind: 'deep' | 'tools';
  packageName: string;
  /** The tools a tools-only provider contributes (a test keeps this equal to its `tools()`). */
  tools?: readonly string[];
  create(): Promise<Provider>;
}

const DEFAULT_PROVIDERS: readonly ProviderEntry[] = [
  {
    id: 'android',
    kind: 'tools',
    packageName: '@rea/provider-android',
    tools: [
      'inspect_android_class',
      'inspect_android_method',
      'inspect_android_package',
      'project_android_application_graph',
      'search_android_classes',
      'trace_android_references',
    ],
    create: async () => (await import('@rea/provider-android')).createAndroidProvider(),
  },
  {
    id: 'android-device',
    kind: 'tools',
    packageName: '@rea/provider-android',
    tools: [
      'list_android_devices',
      'inspect_android_device',
      'list_android_packages',
      'inspect_android_device_package',
      'list_android_directory',
      'pull_android_file',
      'read_android_logcat',
      'capture_android_screen',
      'push_android_file',
      'install_android_package',
      'uninstall_android_package',
      'start_android_app',
      'stop_android_app',
    ],
    create: async () => (await import('@rea/provider-android')).createAndroidDeviceProvider(),
  },
  {
    id: 'artifact',
    kind: 'tools',
    packageName: '@rea/artifact',
    tools: ['compare_artifacts', 'extract_artifact', 'inspect_artifact', 'inspect_binary_layout'],
    create: async () => (await import('@rea/artifact')).createArtifactProvider(),
  },
  {
    id: 'browser',
    kind: 'tools',
    packageName: '@rea/provider-browser',
    tools: [
      'capture_browser_scenario',
      'capture_web_screenshot',
      'compare_web_captures',
      'compare_web_screenshots',
      'discover_webmcp_tools',
      'inspect_web_page',
      'list_browser_targets',
    ],
    create: async () => (await import('@rea/provider-browser')).createBrowserProvider(),
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
    tools: [
      'analyze_javascript_application',
      'compare_application_versions',
      'compare_javascript_export_shapes',
      'compare_source_to_bundle',
      'trace_application_feature',
      'trace_javascript_semantics',
    ],
    create: async () => (await import('@rea/javascript')).createJavascriptProvider(),
  },
  {
    id: 'lldb',
    kind: 'tools',
    packageName: '@rea/provider-lldb',
    tools: ['capture_process_scenario', 'compare_process_captures', 'observe_native_calls'],
    create: async () => (await import('@rea/provider-lldb')).createLldbProvider(),
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
  return createProviders(DEFAULT_PROVIDERS, new Map());
}

/** {@link createDefaultProviders}, reusing (and recording in `created`) the providers made so far by id. */
export async function createDefaultProvidersReusing(created: Map<string, Provider>): Promise<Provider[]> {
  return createProviders(DEFAULT_PROVIDERS, created);
}

/**
 * The default providers a command using only the named tools needs: every deep provider (a native
 * target may be opened with any of them) and the tools-only providers that contribute one of the
 * names; the others are not imported. `created` holds the providers made so far by id (filled in
 * here), so that a later complete list reuses the same instances. With `deep: false` the deep
 * providers are left out (none contributes tools): what a command needs to build its tools only.
 */
export async function createProvidersFor(
  names: readonly string[],
  created: Map<string, Provider> = new Map(),
  options: { deep?: boolean } = {},
): Promise<Provider[]> {
  const wanted = new Set(names);
  const deep = options.deep ?? true;
  const entries = DEFAULT_PROVIDERS.filter(
    (entry) => (deep && entry.kind === 'deep') || (entry.tools ?? []).some((name) => wanted.has(name)),
  );
  return createProviders(entries, created);
}

/**
 * The default providers the MCP server needs from its first tool call: the deep providers (a target may
 * be opened with any of them, and binary_session lists them), reusing and recording those in `created`.
 */
export async function createDeepProvidersReusing(created: Map<string, Provider>): Promise<Provider[]> {
  return createProviders(
    DEFAULT_PROVIDERS.filter((entry) => entry.kind === 'deep'),
    created,
  );
}

/**
 * The tools the MCP server knows by their facts (packages/rea/src/generated/toolFacts.ts) until the
 * first call of one of them: the composition's native tools, and each tools-only default provider whose
 * facts were generated, imported then (reusing and recording it in `created`). So binary_session and the
 * other providers' tools load none of them; a package that cannot be loaded fails that call with
 * `internal` and is tried again by the next.
 */
export async function createDeferredTools(created: Map<string, Provider>): Promise<DeferredTools[]> {
  const { COMPOSITION_TOOL_FACTS, DEFERRED_TOOL_FACTS } = await import('./generated/toolFacts.js');
  const providers = DEFAULT_PROVIDERS.filter((entry) => entry.kind === 'tools' && entry.id in DEFERRED_TOOL_FACTS);
  // The composition's tools in two groups by their availability, each loading exactly its own tools.
  const composition = (facts: readonly ToolFacts[]) => () => loadNativeTools(facts.map((tool) => tool.name));
  const { always, native } = COMPOSITION_TOOL_FACTS;
  return [
    { provider: null, tools: always, load: composition(always) },
    { provider: null, tools: native, availability: nativeAvailability, load: composition(native) },
    ...providers.map((entry): DeferredTools => ({
      provider: entry.id,
      tools: DEFERRED_TOOL_FACTS[entry.id]!,
      load: async () => {
        const existing = created.get(entry.id);
        if (existing) return existing;
        let provider: Provider;
        try {
          provider = await entry.create();
        } catch (error) {
          const cause = error instanceof Error ? error.message.split('\n')[0] : String(error);
          throw new ReaError('internal', `${entry.packageName} could not be loaded: ${cause}`, {
            details: { reason: 'provider-load-failed', provider_id: entry.id },
            remediation: `Reinstall REA (npm install rea-mcp) so that ${entry.packageName} is complete.`,
          });
        }
        created.set(entry.id, provider);
        return provider;
      },
    })),
  ];
}

async function createProviders(entries: readonly ProviderEntry[], created: Map<string, Provider>): Promise<Provider[]> {
  const providers: Provider[] = [];
  // One import at a time: module graphs that share dependencies load more predictably in sequence.
  for (const entry of entries) {
    let provider = created.get(entry.id);
    if (provider === undefined) {
      try {
        provider = await entry.create();
      } catch (error) {
        provider = unloadable(entry, error);
      }
      created.set(entry.id, provider);
    }
    providers.push(provider);
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
 * The named tools of the catalog, as {@link createDefaultTools} makes them, from `providers` (those
 * of {@link createProvidersFor}) and the composition; the server's own tools load only when a name is
 * not found there. Names this installation does not have are left out.
 */
export async function createToolsFor(
  names: readonly string[],
  providers: readonly Provider[],
): Promise<AnyToolContract[]> {
  const wanted = new Set(names);
  // Only the modules declaring the named native tools load: the others' schemas are never built.
  const composition = await loadNativeTools(wanted);
  let found = [...composition, ...providers.flatMap((provider) => provider.tools())].filter((t) => wanted.has(t.name));
  if (found.length < wanted.size) {
    const { SERVER_TOOLS } = await import('@rea/server');
    found = [...found, ...SERVER_TOOLS.filter((t) => wanted.has(t.name))];
  }
  return sortCatalog(found);
}

/**
 * Unpacks a ZIP package into a fresh directory under `parentDirectory` through `@rea/artifact`
 * (unsafe paths refused, executable bits kept, removed on failure) and resolves to its path.
 */
export async function extractZipPackage(path: string, parentDirectory: string, signal: AbortSignal): Promise<string> {
  const { extractArtifact } = await import('@rea/artifact');
  return (await extractArtifact(path, { parentDirectory, signal })).outputDirectory;
}
