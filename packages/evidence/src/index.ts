/**
 * @rea/evidence — every export of this module is public API.
 *
 * Canonical JSON (RFC 8785), Evidence records v2 and their identity, and the error model.
 */
export { ERROR_CODES, ERROR_CODE_LIST, isErrorCode } from './errorCodes.js';
export type { ErrorCode } from './errorCodes.js';
export { ReaError, isReaError, normalizeError, toDiagnostic, throwIfAborted } from './reaError.js';
export type { Diagnostic, ReaErrorOptions } from './reaError.js';
export type { JsonObject, JsonValue } from './json.js';
export { canonicalJson, canonicalSha256, parseJson, writeCanonicalJson } from './canonicalJson.js';
export type { CanonicalSink } from './canonicalJson.js';
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
  sealEvidence,
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
