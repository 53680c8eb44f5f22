/**
 * @rea/example-line-count-provider — every export of this module is public API. A tools provider whose
 * tool starts a process for each call, with its engine seam in src/engine.ts.
 */
export { createLineCountProvider } from './provider.js';
