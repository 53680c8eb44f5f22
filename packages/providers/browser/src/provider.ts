import type { AnyToolContract, ToolsProvider } from '@rea/provider-kit';
import { BROWSER_SETTINGS } from './settings.js';
import { compareWebCapturesTool } from './tools/compareWebCaptures.js';
import { compareWebScreenshotsTool } from './tools/compareWebScreenshots.js';
import { captureBrowserScenarioTool } from './tools/captureBrowserScenario.js';
import { captureWebScreenshotTool } from './tools/captureWebScreenshot.js';
import { discoverWebmcpToolsTool } from './tools/discoverWebmcpTools.js';
import { inspectWebPageTool } from './tools/inspectWebPage.js';
import { listBrowserTargetsTool } from './tools/listBrowserTargets.js';
import { BROWSER_PROVIDER_VERSION } from './version.js';

/** The tools of this package, sorted by name. */
export const browserTools: readonly AnyToolContract[] = Object.freeze([
  captureBrowserScenarioTool,
  captureWebScreenshotTool,
  compareWebCapturesTool,
  compareWebScreenshotsTool,
  discoverWebmcpToolsTool,
  inspectWebPageTool,
  listBrowserTargetsTool,
]);

/** Capabilities the browser provider declares. */
export const BROWSER_CAPABILITIES = Object.freeze([
  'browser-scenario',
  'browser-targets',
  'web-capture-comparison',
  'web-page-inspection',
  'web-screenshot-comparison',
  'web-screenshots',
  'webmcp-discovery',
] as const);

/**
 * The browser provider: a `tools` provider over the Chrome DevTools Protocol. It is ready on every
 * host (a loopback endpoint needs nothing installed); endpoint "owned" reports a missing Chromium
 * as `capability_unavailable` at the call that needs it.
 */
export function createBrowserProvider(): ToolsProvider {
  return Object.freeze({
    kind: 'tools' as const,
    id: 'browser',
    name: '@rea/provider-browser',
    version: BROWSER_PROVIDER_VERSION,
    capabilities: BROWSER_CAPABILITIES,
    settings: BROWSER_SETTINGS,
    probe: () => Promise.resolve({ status: 'ready' as const, version: BROWSER_PROVIDER_VERSION }),
    tools: () => browserTools,
  });
}
