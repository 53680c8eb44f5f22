/**
 * @rea/provider-browser — every export of this module is public API.
 *
 * Live web pages over the Chrome DevTools Protocol: the targets of a loopback endpoint or of a
 * headless Chromium REA owns for the call, and passive page inspection, as Evidence.
 */
export { BROWSER_PROVIDER_VERSION } from './version.js';
export { BROWSER_SETTINGS, BROWSER_START_TIMEOUT_MS } from './settings.js';
export { CHROME_NAMES, chromeFlags, findChrome } from './owned.js';
export { isLoopbackAddress, resolveEndpoint } from './endpoint.js';
export type { Endpoint } from './endpoint.js';
export { BROWSER_PROVIDER } from './tools/common.js';
export { BrowserTargetsSchema, listBrowserTargetsTool } from './tools/listBrowserTargets.js';
export { captureBrowserScenarioTool } from './tools/captureBrowserScenario.js';
export { ActionSchema, ScenarioCaptureSchema } from './scenario/schema.js';
export type { Action, ScenarioCapture } from './scenario/schema.js';
export { captureWebScreenshotTool } from './tools/captureWebScreenshot.js';
export { compareWebScreenshotsTool } from './tools/compareWebScreenshots.js';
export { ScreenshotComparisonSchema, WebScreenshotSchema } from './screenshot/schema.js';
export type { ScreenshotComparison, WebScreenshot } from './screenshot/schema.js';
export { compareWebCapturesTool } from './tools/compareWebCaptures.js';
export { CompareInputSchema, WebCaptureComparisonSchema } from './compare/schema.js';
export type { WebCaptureComparison } from './compare/schema.js';
export { WebmcpDiscoverySchema, discoverWebmcpToolsTool } from './tools/discoverWebmcpTools.js';
export { inspectWebPageTool } from './tools/inspectWebPage.js';
export { WebPageInspectionSchema } from './inspect/schema.js';
export type { WebPageInspection } from './inspect/schema.js';
export { BROWSER_CAPABILITIES, browserTools, createBrowserProvider } from './provider.js';
