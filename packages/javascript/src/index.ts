/**
 * @rea/javascript — every export of this module is public API.
 *
 * JavaScript and Electron application analysis without running the application: inventory, Electron
 * roles, module graph (files, bundled modules, source-map sources), and the facts an investigator asks
 * first (strings, URLs and hosts, IPC channels, dynamic code sites, Node built-ins), as Evidence.
 */
export { JAVASCRIPT_PACKAGE_VERSION } from './version.js';
export { analyzeJavascriptApplication } from './api.js';
export type { AnalyzeOptions, AnalyzeOutcome } from './analysis/analyze.js';
export {
  AssetSchema,
  BundledModuleSchema,
  EdgeSchema,
  ExportSchema,
  FileModuleSchema,
  JavascriptApplicationSchema,
  SourceModuleSchema,
} from './schemas.js';
export type {
  Asset,
  BundledModule,
  Edge,
  ExportShape,
  FileModule,
  JavascriptApplication,
  SourceModule,
} from './schemas.js';
export { JAVASCRIPT_PROVIDER } from './tools/common.js';
export { analyzeJavascriptApplicationTool } from './tools/analyzeJavascriptApplication.js';
export { FeatureTraceSchema, traceApplicationFeatureTool } from './tools/traceApplicationFeature.js';
export { traceFeature } from './analysis/trace.js';
export type { FeatureTrace, TraceSeed, TraceSite } from './analysis/trace.js';
export { JAVASCRIPT_CAPABILITIES, createJavascriptProvider, javascriptTools } from './provider.js';
