/**
 * @rea/provider-capstone — every export of this module is public API.
 *
 * The embedded, zero-install deep-analysis provider (Capstone compiled to WebAssembly). Importing this
 * module does not load the engine; the first `open` does.
 */
export {
  CAPSTONE_PROVIDER_ID,
  CAPSTONE_PROVIDER_VERSION,
  capstoneProfile,
  createCapstoneProvider,
} from './provider.js';
export type { CapstoneProviderOptions } from './provider.js';
export { CAPSTONE_CAPABILITIES, CapstonePort } from './port.js';
export { CAPSTONE_OPEN_TIMEOUT_MS, CAPSTONE_SETTINGS } from './settings.js';
