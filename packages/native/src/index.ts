/**
 * @rea/native — every export of this module is public API.
 *
 * The engine-neutral native-analysis port a deep provider implements, the canonical address format,
 * and the Evidence-producing tools built on the port.
 */
// Everything of @rea/native/core (the port, addresses, availability, the lazy tool loader), and the tools.
export * from './core.js';
export { createNativeTools } from './tools/index.js';
export { FunctionDossierSchema, NATIVE_VIEW_FACETS } from './tools/dossier.js';
export type { FunctionDossier } from './tools/dossier.js';
