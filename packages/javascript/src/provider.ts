import type { AnyToolContract, ToolsProvider } from '@rea/provider-kit';
import { analyzeJavascriptApplicationTool } from './tools/analyzeJavascriptApplication.js';
import { compareApplicationVersionsTool } from './tools/compareApplicationVersions.js';
import { compareJavascriptExportShapesTool } from './tools/compareJavascriptExportShapes.js';
import { compareSourceToBundleTool } from './tools/compareSourceToBundle.js';
import { traceApplicationFeatureTool } from './tools/traceApplicationFeature.js';
import { traceJavascriptSemanticsTool } from './tools/traceJavascriptSemantics.js';
import { JAVASCRIPT_PACKAGE_VERSION } from './version.js';

/** The tools of this package, sorted by name. */
export const javascriptTools: readonly AnyToolContract[] = Object.freeze([
  analyzeJavascriptApplicationTool,
  compareApplicationVersionsTool,
  compareJavascriptExportShapesTool,
  compareSourceToBundleTool,
  traceApplicationFeatureTool,
  traceJavascriptSemanticsTool,
]);

/** Capabilities the JavaScript provider declares on every host. */
export const JAVASCRIPT_CAPABILITIES = Object.freeze([
  'javascript-application-analysis',
  'javascript-feature-trace',
  'javascript-version-comparison',
] as const);

/**
 * The JavaScript provider: a `tools` provider with no engine to probe (the parser is a dependency, so
 * it is always ready).
 */
export function createJavascriptProvider(): ToolsProvider {
  return Object.freeze({
    kind: 'tools' as const,
    id: 'javascript',
    name: '@rea/javascript',
    version: JAVASCRIPT_PACKAGE_VERSION,
    capabilities: JAVASCRIPT_CAPABILITIES,
    probe: () => Promise.resolve({ status: 'ready' as const, version: JAVASCRIPT_PACKAGE_VERSION }),
    tools: () => javascriptTools,
  });
}
