import type { AnyToolContract, ToolsProvider } from '@rea/provider-kit';
import { inspectAndroidClassTool } from './tools/inspectAndroidClass.js';
import { inspectAndroidMethodTool } from './tools/inspectAndroidMethod.js';
import { inspectAndroidPackageTool } from './tools/inspectAndroidPackage.js';
import { projectAndroidApplicationGraphTool } from './tools/projectAndroidApplicationGraph.js';
import { searchAndroidClassesTool } from './tools/searchAndroidClasses.js';
import { traceAndroidReferencesTool } from './tools/traceAndroidReferences.js';
import { ANDROID_PROVIDER_VERSION } from './version.js';

/** The static-analysis tools of this package, sorted by name. */
export const androidTools: readonly AnyToolContract[] = Object.freeze([
  inspectAndroidClassTool,
  inspectAndroidMethodTool,
  inspectAndroidPackageTool,
  projectAndroidApplicationGraphTool,
  searchAndroidClassesTool,
  traceAndroidReferencesTool,
]);

/** Capabilities the Android static-analysis provider declares on every host. */
export const ANDROID_CAPABILITIES = Object.freeze(['android-package-analysis', 'android-bytecode-analysis'] as const);

/**
 * The Android static-analysis provider: a `tools` provider whose parsers are its own code (no JVM, no
 * engine to probe), so it is always ready.
 */
export function createAndroidProvider(): ToolsProvider {
  return Object.freeze({
    kind: 'tools' as const,
    id: 'android',
    name: '@rea/provider-android',
    version: ANDROID_PROVIDER_VERSION,
    capabilities: ANDROID_CAPABILITIES,
    probe: () => Promise.resolve({ status: 'ready' as const, version: ANDROID_PROVIDER_VERSION }),
    tools: () => androidTools,
  });
}
