/**
 * @rea/provider-hopper — every export of this module is public API.
 *
 * Hopper Disassembler as a deep-analysis provider of the native port. Importing it starts nothing;
 * the first query of an open target starts Hopper with the package's Python bridge.
 */
export {
  HOPPER_CAPABILITIES,
  HOPPER_PROVIDER_ID,
  HOPPER_PROVIDER_VERSION,
  HOPPER_STARTUP_TIMEOUT_MS,
  createHopperProvider,
  hopperBridgeScript,
  hopperProfile,
} from './provider.js';
export type { HopperProviderOptions } from './provider.js';
export {
  HOPPER_DEFAULT_LAUNCHERS,
  HOPPER_UNKNOWN_VERSION,
  HOPPER_UNKNOWN_VERSION_NOTE,
  SUPPORTED_HOPPER_MAJORS,
  discoverHopper,
} from './discovery.js';
export type { HopperDiscovery, HopperInstallation } from './discovery.js';
