import type { AnyToolContract, ToolsProvider } from '@rea/provider-kit';
import { probeLldb } from './probe.js';
import { LLDB_SETTINGS } from './settings.js';
import { captureProcessScenarioTool } from './tools/captureProcessScenario.js';
import { compareProcessCapturesTool } from './tools/compareProcessCaptures.js';
import { observeNativeCallsTool } from './tools/observeNativeCalls.js';
import { LLDB_PROVIDER_VERSION } from './version.js';

/** The tools of this package, sorted by name. */
export const lldbTools: readonly AnyToolContract[] = Object.freeze([
  captureProcessScenarioTool,
  compareProcessCapturesTool,
  observeNativeCallsTool,
]);

/** Capabilities the LLDB provider declares. */
export const LLDB_CAPABILITIES = Object.freeze([
  'native-call-tracing',
  'process-capture',
  'process-capture-comparison',
] as const);

/**
 * The LLDB provider: a `tools` provider for dynamic observation. Its probe starts nothing (it looks for
 * Python and LLDB's module on disk); each call starts its processes through the call's supervisor.
 */
export function createLldbProvider(): ToolsProvider {
  return Object.freeze({
    kind: 'tools' as const,
    id: 'lldb',
    name: '@rea/provider-lldb',
    version: LLDB_PROVIDER_VERSION,
    capabilities: LLDB_CAPABILITIES,
    settings: LLDB_SETTINGS,
    probe: () => probeLldb(),
    tools: () => lldbTools,
  });
}
