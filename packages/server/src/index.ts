/**
 * @rea/server — every export of this module is public API.
 *
 * REA's MCP server: the static tool catalog, per-connection sessions and Evidence ledgers, response
 * budgets, progress and cancellation, over stdio and Streamable HTTP. It takes its providers and extra
 * tools from the composition root and imports no provider.
 */
export { createReaServer } from './server.js';
export type { ReaServer, ShutdownReport } from './server.js';
export type { DeferredTools, ReaServerOptions, ServerComposition } from './runtime.js';
export { runStdioServer } from './stdio.js';
export type { StdioServerHandle, StdioServerOptions } from './stdio.js';
export { isLoopbackHost, runHttpServer } from './http.js';
export type { HttpServerHandle, HttpServerOptions } from './http.js';
export { measureResponse } from './budget.js';
export type { ResponseCost } from './budget.js';
export { SERVER_TOOLS } from './tools/index.js';
export type { CallLineageSnapshot, LineageSnapshot } from './providers.js';
