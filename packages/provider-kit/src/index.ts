/**
 * @rea/provider-kit — every export of this module is public API.
 *
 * Tool contracts (defineTool, executeTool), effects and their MCP annotations, the tool context, the
 * Provider interface, the registry and selection policy, owned processes and resources, configuration,
 * deadlines, progress and cancellation, and retaining a complete record behind a `detail: "summary"` answer.
 */
export { EFFECT_FLAGS, NO_EFFECTS, RECORDS_EVIDENCE, deriveAnnotations, validateEffects } from './effects.js';
export type { ToolAnnotations, ToolEffects } from './effects.js';
export { defineTool, executeTool, invalidInput, outputCheckedByExecution, rootObjects, sortCatalog } from './tool.js';
export { toolFactsMismatch, toolFactsOf } from './facts.js';
export type { ToolFacts } from './facts.js';
export { validateCooperatively } from './validateResult.js';
export type { ValidationIssues } from './validateResult.js';
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
  InvocationHostFacts,
  LedgerAccess,
  Logger,
  PortPeer,
  ProgressSink,
  ProviderBinding,
  SessionView,
  ToolContext,
} from './context.js';
export { NATIVE_PORT, PORT_PATTERN, alternativesFor, portSession } from './ports.js';
export type { DeepPorts, PortSession } from './ports.js';
export { createProviderBinding, isDeepProvider, requireCapability, validateProvider } from './provider.js';
export type {
  DeepProvider,
  DeepSession,
  OpenOptions,
  ProbeResult,
  Provider,
  TargetDescriptor,
  TargetSupport,
  ToolsProvider,
} from './provider.js';
export { PROVIDER_ID_PATTERN, parseProviderChoice } from './providerId.js';
export type { ChoiceSource, ProviderChoice } from './providerId.js';
export { createProviderRegistry, probeProviders } from './registry.js';
export type { ProviderRegistry } from './registry.js';
export { describeCandidates, selectProvider } from './selection.js';
export type { ProviderCandidate, ProviderSelection, SelectProviderOptions, SelectionFailure } from './selection.js';
export { CALL_GRACE_MS, createCallSupervisor, createProcessSupervisor } from './supervisor/supervisor.js';
export type { OwnedResource, ProcessSupervisor, SupervisorOptions } from './supervisor/supervisor.js';
export { cleanupIncomplete } from './supervisor/ownedProcess.js';
export { createSessionResources } from './supervisor/session.js';
export type { SessionResource, SessionResources, SessionResourcesHost } from './supervisor/session.js';
export { mountsUnderByDevice } from './supervisor/resources.js';
export type {
  LineageObservation,
  ObservedProcess,
  OwnedProcess,
  OwnedResourceKind,
  ProcessExit,
  ProcessIdentity,
  RemainingResources,
  StartOptions,
} from './supervisor/ownedProcess.js';
export {
  BUILT_IN_SETTINGS,
  CONFIG_VARIABLES,
  ENVELOPE_RESERVE_BYTES,
  GHIDRA_SETTINGS,
  HOPPER_SETTINGS,
  MIN_RESPONSE_BYTES,
  REA_SETTINGS,
  providerSettings,
  readConfig,
} from './config.js';
export type { ReaConfig } from './config.js';
export {
  choiceSetting,
  defineSettings,
  describeSettings,
  integerSetting,
  pathSetting,
  readSettings,
  settingsOf,
} from './settings.js';
export type { Setting, SettingDescription, SettingsDeclaration, SettingsValues } from './settings.js';
export { createProgressReporter, startWaitingNotices } from './progress.js';
export type { ProgressNotification, ProgressReporter, ProgressReporterOptions, WaitingNotices } from './progress.js';
export { createSessionObservation } from './observation.js';
export type { SessionObservationFields } from './observation.js';
export { requireRetention, retainAndSummarize } from './retention.js';
export { withDeadline } from './deadline.js';
export type { DeadlineOptions } from './deadline.js';
export { readActiveTarget, sniffTargetFormat } from './target.js';
export { SMALL_FILE_BYTES, hashSmallFileSync, readSmallFileSync } from './smallFile.js';
export { packageDirectory, packageFile, packageVersion } from './packageFile.js';
export type { SmallFileDigest } from './smallFile.js';
