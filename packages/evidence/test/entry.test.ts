import { describe, expect, it } from '@jest/globals';
import * as entry from '@rea/evidence';

/**
 * The runtime names the public entry exports. A change here is a change to the published API:
 * update the list deliberately, together with a changeset.
 */
const PINNED = [
  'AnalysisProfileSchema',
  'AnalysisViewRequestSchema',
  'AnalysisViewSchema',
  'BUNDLE_FORMAT',
  'BUNDLE_VERSION',
  'BundleEnvelopeSchema',
  'CoverageSchema',
  'DEFAULT_LEDGER_MAX_BYTES',
  'DEFAULT_LEDGER_MAX_RECORDS',
  'DEFAULT_MAX_BUNDLE_BYTES',
  'DEFAULT_VIEW_LIMIT',
  'DIAGNOSTIC_STRING_LIMIT',
  'ERROR_CODES',
  'ERROR_CODE_LIST',
  'EvidenceIdSchema',
  'EvidenceRecordSchema',
  'JsonObjectSchema',
  'JsonValueSchema',
  'LimitationSchema',
  'LocalFactsSchema',
  'LocationSchema',
  'ProviderIdentitySchema',
  'ReaError',
  'RetainedEvidenceRefSchema',
  'Sha256HexSchema',
  'SubjectSchema',
  'SummaryFiltersSchema',
  'SummaryViewSchema',
  'canonicalByteLength',
  'canonicalJson',
  'canonicalSha256',
  'canonicalSha256Async',
  'capEcho',
  'computeEvidenceId',
  'createAnalysisProfile',
  'createSessionLedger',
  'evidenceRecordSchemaFor',
  'exportBundle',
  'identityProjection',
  'importBundle',
  'isErrorCode',
  'isReaError',
  'matchesSummaryFilters',
  'normalizeError',
  'parseEvidence',
  'parseJson',
  'procedureAddressOf',
  'readBundleSummary',
  'sealAnalysisView',
  'sealEvidence',
  'sealEvidenceAsync',
  'selectAnalysisView',
  'summarizeEvidence',
  'throwIfAborted',
  'toDiagnostic',
  'writeCanonicalBytes',
  'writeCanonicalJson',
];

describe('@rea/evidence entry', () => {
  it('should export exactly the pinned names', () => {
    expect(Object.keys(entry).sort()).toEqual(PINNED);
  });
});
