/**
 * @rea/provider-kit — every export of this module is public API.
 *
 * Tool contracts (defineTool, executeTool), effects and their MCP annotations, and the tool context.
 */
export { EFFECT_FLAGS, deriveAnnotations, validateEffects } from './effects.js';
export type { ToolAnnotations, ToolEffects } from './effects.js';
export { defineTool, executeTool, invalidInput, rootObjects, sortCatalog } from './tool.js';
export type {
  AnyToolContract,
  Availability,
  EvidenceToolDefinition,
  Observation,
  ResultToolDefinition,
  ToolContract,
  ToolExample,
  ToolOutcome,
} from './tool.js';
export type {
  ActiveTarget,
  AvailabilityContext,
  ClientFeature,
  LedgerAccess,
  Logger,
  ProgressSink,
  ProviderBinding,
  SessionView,
  ToolContext,
} from './context.js';
