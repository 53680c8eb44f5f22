import type { AnyToolContract, ToolsProvider } from '@rea/provider-kit';
import { compareArtifactsTool } from './tools/compareArtifacts.js';
import { extractArtifactTool } from './tools/extractArtifact.js';
import { inspectArtifactTool } from './tools/inspectArtifact.js';
import { inspectBinaryLayoutTool } from './layout/tool.js';
import { ARTIFACT_PACKAGE_VERSION } from './version.js';

/** The container tools of this package, sorted by name. */
export const artifactTools: readonly AnyToolContract[] = Object.freeze([
  compareArtifactsTool,
  extractArtifactTool,
  inspectArtifactTool,
  inspectBinaryLayoutTool,
]);

/**
 * Capabilities the artifact provider declares on every host. `dmg` is added on macOS only, where
 * `hdiutil` can attach images; elsewhere DMG inventory refuses with `capability_unavailable`
 * (`details.capability: "dmg"`).
 */
export const ARTIFACT_CAPABILITIES = Object.freeze([
  'artifact-comparison',
  'artifact-extraction',
  'artifact-inventory',
  'asar',
  'zip',
] as const);

/** Options of {@link createArtifactProvider}. */
export interface ArtifactProviderOptions {
  /** Extra tool contracts contributed by this package (e.g. binary layout), merged and sorted. */
  extraTools?: readonly AnyToolContract[];
  /** The host platform, which decides the `dmg` capability; default `process.platform`. */
  platform?: NodeJS.Platform;
}

/**
 * The artifact provider: a `tools` provider with no engine to probe (always ready). Its tools are the
 * container tools plus any `extraTools`, sorted by name.
 */
export function createArtifactProvider(options: ArtifactProviderOptions = {}): ToolsProvider {
  const tools = [...artifactTools, ...(options.extraTools ?? [])].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return Object.freeze({
    kind: 'tools' as const,
    id: 'artifact',
    name: '@rea/artifact',
    version: ARTIFACT_PACKAGE_VERSION,
    capabilities:
      (options.platform ?? process.platform) === 'darwin'
        ? [...ARTIFACT_CAPABILITIES, 'dmg'].sort()
        : ARTIFACT_CAPABILITIES,
    probe: () => Promise.resolve({ status: 'ready' as const, version: ARTIFACT_PACKAGE_VERSION }),
    tools: () => tools,
  });
}
