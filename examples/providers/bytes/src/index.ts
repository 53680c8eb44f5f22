/**
 * @rea/example-bytes-provider — every export of this module is public API. A deep provider whose
 * engine session is the target's bytes: the smallest complete provider.
 */
export { createBytesProvider } from './provider.js';
