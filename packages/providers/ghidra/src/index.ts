/**
 * @rea/provider-ghidra — every export of this module is public API.
 *
 * Ghidra as a deep-analysis provider of the native port. Importing it starts nothing; the first
 * query of an open target starts Ghidra headless.
 */
export {
  GHIDRA_BRIDGE_SCRIPT,
  GHIDRA_CAPABILITIES,
  GHIDRA_PROVIDER_ID,
  GHIDRA_PROVIDER_VERSION,
  GHIDRA_STARTUP_TIMEOUT_MS,
  createGhidraProvider,
  ghidraProfile,
  ghidraScriptsDirectory,
} from './provider.js';
export type { GhidraProviderOptions } from './provider.js';
export { SUPPORTED_GHIDRA, discoverGhidra } from './discovery.js';
export type { GhidraDiscovery, GhidraInstallation } from './discovery.js';
