/**
 * @rea/native — every export of this module is public API.
 *
 * The engine-neutral native-analysis port a deep provider implements, the canonical address format,
 * and the Evidence-producing tools built on the port.
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
export { createNativeTools } from './tools/index.js';
export { NATIVE_TOOL_NAMES, loadNativeTools } from './tools/lazy.js';
export { FunctionDossierSchema, NATIVE_VIEW_FACETS } from './tools/dossier.js';
export type { FunctionDossier } from './tools/dossier.js';
