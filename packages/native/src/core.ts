/**
 * @rea/native/core — every export of this module is public API.
 *
 * The native-analysis port, the canonical address format and the availability every native tool
 * shares, without the tool contracts: what a deep provider implementing the port imports, so that
 * loading one does not build the native tools (also exported by `@rea/native`). With them, the factory of
 * a provider backed by an external engine over the bridge (`createBridgeProvider`, also exported by
 * `@rea/native/bridge`), which loads the bridge's session and protocol schemas with its first open.
 */
export { AddressSchema, formatAddress, parseAddress } from './address.js';
export type { NativeAddress } from './address.js';
export { NATIVE_CAPABILITIES, createNavigationState, isNativePort, paginate } from './port.js';
export type {
  AddressComments,
  BasicBlock,
  Bookmark,
  CallSite,
  Callees,
  ControlFlow,
  FlowEdge,
  NativeCapability,
  NativeDocument,
  NativeInstruction,
  NativeName,
  NativePort,
  NativeReference,
  NativeReferences,
  NativeSegment,
  NativeString,
  NavigationPosition,
  NavigationState,
  Page,
  PageRequest,
  ProcedureInfo,
  ProcedureSource,
  ProcedureSummary,
  Pseudocode,
  HighPcodeOp,
  UnresolvedTransfer,
} from './port.js';
export { nativeAvailability } from './availability.js';
export { NATIVE_TOOL_NAMES, loadNativeTools } from './tools/lazy.js';
export { BRIDGE_PROTOCOL } from './bridge/constants.js';
export { createBridgeProvider, shippedBridgeFile } from './bridge/provider.js';
export type { BridgeProviderSpec, EngineDiscovery } from './bridge/provider.js';
