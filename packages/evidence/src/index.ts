/**
 * @rea/evidence — every export of this module is public API.
 *
 * Canonical JSON (RFC 8785), Evidence records v2 and their identity, the error model, the session
 * ledger, bundles and analysis views.
 */
export { ERROR_CODES, ERROR_CODE_LIST, isErrorCode } from './errorCodes.js';
export type { ErrorCode } from './errorCodes.js';
export {
  DIAGNOSTIC_STRING_LIMIT,
  ReaError,
  capEcho,
  isReaError,
  normalizeError,
  toDiagnostic,
  throwIfAborted,
} from './reaError.js';
export type { Diagnostic, ReaErrorOptions } from './reaError.js';
export { replaceableDestination } from './destination.js';
export { fileSystemError } from './fsErrors.js';
export type { JsonObject, JsonValue } from './json.js';
export { monotonicMs } from './clock.js';
export { canonicalByteLength, canonicalJson, canonicalSha256, parseJson, writeCanonicalJson } from './canonicalJson.js';
export type { CanonicalSink } from './canonicalJson.js';
export { canonicalJsonAsync, canonicalSha256Async } from './canonicalAsync.js';
export type { CanonicalAsyncOptions } from './canonicalAsync.js';
export { writeCanonicalBytes } from './canonicalBytes.js';
export type { CanonicalByteSink } from './canonicalBytes.js';
export {
  AnalysisProfileSchema,
  CoverageSchema,
  EvidenceIdSchema,
  EvidenceRecordSchema,
  JsonObjectSchema,
  JsonValueSchema,
  LimitationSchema,
  LocalFactsSchema,
  LocationSchema,
  ProviderIdentitySchema,
  RetainedEvidenceRefSchema,
  Sha256HexSchema,
  SubjectSchema,
  computeEvidenceId,
  createAnalysisProfile,
  evidenceRecordSchemaFor,
  identityProjection,
  parseEvidence,
  parseEvidenceAsync,
  sealEvidence,
  sealEvidenceAsync,
  sealedByteSize,
} from './evidence.js';
export type {
  AnalysisProfile,
  Coverage,
  EvidenceRecord,
  Limitation,
  Location,
  ProviderIdentity,
  RetainedEvidenceRef,
  Subject,
  UnsignedEvidence,
} from './evidence.js';
export { SummaryFiltersSchema, matchesSummaryFilters, procedureAddressOf, summarizeEvidence } from './summary.js';
export type { EvidenceSummary, SummaryFilters } from './summary.js';
export { DEFAULT_LEDGER_MAX_BYTES, DEFAULT_LEDGER_MAX_RECORDS, createSessionLedger } from './ledger.js';
export type { LedgerMergeResult, SessionLedger, SessionLedgerOptions } from './ledger.js';
export { BUNDLE_FORMAT, BUNDLE_VERSION, BundleEnvelopeSchema, DEFAULT_MAX_BUNDLE_BYTES } from './bundleFormat.js';
export { exportBundle } from './exportBundle.js';
export type { ExportBundleOptions, ExportBundleResult } from './exportBundle.js';
export { importBundle, readBundleSummary } from './importBundle.js';
export type { BundleSummary, ImportBundleOptions, ImportedBundle } from './importBundle.js';
export { AnalysisViewRequestSchema, DEFAULT_VIEW_LIMIT, selectAnalysisView } from './views.js';
export type {
  AnalysisView,
  AnalysisViewRequest,
  ItemView,
  PageView,
  SectionView,
  SummaryView,
  ViewCoverage,
} from './views.js';
export { AnalysisViewSchema, SummaryViewSchema } from './viewSchema.js';
export type { ApplicationFacet, FlagFacet, SemanticPhaseCoverage } from './viewApplication.js';
export { sealAnalysisView } from './viewEvidence.js';
export type { SealAnalysisViewOptions } from './viewEvidence.js';
