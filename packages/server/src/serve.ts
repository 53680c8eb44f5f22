/**
 * @rea/server/serve — every export of this module is public API.
 *
 * The transports and the connection factory of @rea/server without the server's own tool contracts,
 * which load with the rest of the catalog on the first tool call. Hosts that serve a lazy composition
 * (`load` with a precomputed `advertised` catalog) import this entry so that start-up loads only the
 * server core; everything here is also exported by `@rea/server`.
 */
export { createReaServer } from './server.js';
export type { ReaServer, ShutdownReport } from './server.js';
export type { Catalog, DeferredTools, ReaServerOptions, ServerComposition } from './runtime.js';
export { runStdioServer } from './stdio.js';
export type { StdioServerHandle, StdioServerOptions } from './stdio.js';
export { isLoopbackHost, runHttpServer } from './http.js';
export type { HttpServerHandle, HttpServerOptions } from './http.js';
