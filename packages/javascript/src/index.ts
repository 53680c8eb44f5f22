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
  EffectFactSchema,
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
export {
  ExportShapeComparisonSchema,
  compareJavascriptExportShapesTool,
} from './tools/compareJavascriptExportShapes.js';
export { VersionComparisonSchema, compareApplicationVersionsTool } from './tools/compareApplicationVersions.js';
export { SourceComparisonSchema, compareSourceToBundleTool } from './tools/compareSourceToBundle.js';
export { ModuleSemanticsSchema, traceJavascriptSemanticsTool } from './tools/traceJavascriptSemantics.js';
export { compareVersions } from './compare/versions.js';
export type { ModuleChange, VersionComparison } from './compare/versions.js';
export { diffExports } from './compare/exportShapes.js';
export type { ExportChange, ExportDiff } from './compare/exportShapes.js';
export { moduleSemantics } from './analysis/semantics.js';
export type { ModuleSemantics } from './analysis/semantics.js';
export { findModules } from './analysis/lookup.js';
export type { FoundModule } from './analysis/lookup.js';
export type { FeatureTrace, TraceSeed, TraceSite } from './analysis/trace.js';
export { JAVASCRIPT_CAPABILITIES, createJavascriptProvider, javascriptTools } from './provider.js';
