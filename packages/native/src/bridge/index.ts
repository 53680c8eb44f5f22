/**
 * @rea/native/bridge — every export of this module is public API.
 *
 * The shared core of external deep engines (Ghidra, Hopper): the engine runs as an owned process and
 * serves the native port over the line-delimited JSON bridge protocol on an authenticated local socket.
 */
export { BridgePort } from './port.js';
export { createExternalEngine } from './external.js';
export { openBridgeSession } from './session.js';
export { createBridgeProvider, shippedBridgeFile } from './provider.js';
export type { BridgeProviderSpec, EngineDiscovery } from './provider.js';
export type { BridgeSessionOptions } from './session.js';
export type { EngineCall, EngineLaunch, ExternalEngine, ExternalEngineOptions } from './external.js';
export {
  BRIDGE_PROTOCOL,
  BRIDGE_RESULTS,
  BRIDGE_SOCKET_ENV,
  BRIDGE_TOKEN_ENV,
  HelloSchema,
  MAX_LINE_BYTES,
} from './protocol.js';
export type { BridgeHello, BridgeMethod, BridgeResult } from './protocol.js';
