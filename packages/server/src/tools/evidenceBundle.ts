import { z } from 'zod';
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  EvidenceIdSchema,
  EvidenceRecordSchema,
  ProviderIdentitySchema,
  Sha256HexSchema,
  SummaryFiltersSchema,
  exportBundle,
  importBundle,
} from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { ledgerOf } from '../host.js';
import { NO_EFFECTS } from './effects.js';

/** Largest bundle file `import_evidence_bundle` reads. */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

const SummarySchema = z.strictObject({
  evidence_id: EvidenceIdSchema,
  operation: z.string(),
  target_sha256: Sha256HexSchema.nullable(),
  target_format: z.string().nullable(),
  provider: ProviderIdentitySchema,
  analysis_profile_digest: Sha256HexSchema.nullable(),
  procedure_address: z.string().nullable(),
  bytes: z.number().int().nonnegative(),
  retention: z.literal('complete-record'),
});

/** `get_evidence_bundle`: the complete canonical bundle, or payload-free summaries. */
export const getEvidenceBundleTool = defineTool({
  name: 'get_evidence_bundle',
  title: 'Get retained Evidence',
  description:
    'Returns the Evidence retained by this connection. By default the complete canonical bundle ' +
    '{format, records, version}; with detail "summary", one payload-free summary per record (id, operation, ' +
    'target, provider, profile digest, procedure address, size), optionally narrowed by exact-match filters. ' +
    'Filters require detail "summary". A bundle too large for one response is refused with resource_constraint: ' +
    'use export_evidence_bundle instead. Never starts a provider.',
  produces: 'result',
  input: z
    .strictObject({
      detail: z
        .enum(['complete', 'summary'])
        .optional()
        .describe('"complete" (default): every record in full; "summary": summaries without payloads.'),
      filters: SummaryFiltersSchema.optional().describe('Exact-match filters; only with detail "summary".'),
    })
    .refine((value) => value.filters === undefined || value.detail === 'summary', {
      message: 'filters require detail "summary"',
      path: ['filters'],
    }),
  result: z.strictObject({
    format: z.literal('rea-evidence-bundle'),
    version: z.literal(1),
    detail: z.literal('summary').optional(),
    records: z.array(z.union([EvidenceRecordSchema, SummarySchema])),
  }),
  examples: [
    { input: {}, description: 'The complete bundle.' },
    { input: { detail: 'summary' }, description: 'Summaries of every retained record.' },
    {
      input: { detail: 'summary', filters: { operation: 'analyze_function' } },
      description: 'Summaries of retained function analyses.',
    },
  ],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: async (input, context) => {
    const ledger = ledgerOf(context);
    if (input.detail === 'summary') {
      return {
        format: BUNDLE_FORMAT as 'rea-evidence-bundle',
        version: BUNDLE_VERSION as 1,
        detail: 'summary' as const,
        records: ledger.summaries(input.filters ?? {}),
      };
    }
    return {
      format: BUNDLE_FORMAT as 'rea-evidence-bundle',
      records: ledger.list(),
      version: BUNDLE_VERSION as 1,
    };
  },
});

/** `export_evidence_bundle`: streams the bundle into an atomically published file. */
export const exportEvidenceBundleTool = defineTool({
  name: 'export_evidence_bundle',
  title: 'Export retained Evidence to a file',
  description:
    'Writes every Evidence record retained by this connection to a bundle file: canonical JSON streamed to a ' +
    'staging file beside the destination and renamed into place, so the destination changes only when the ' +
    'complete bundle is published (an existing file is replaced). Cancelling stops serialization and removes ' +
    'the staging file. Returns the path, record count, byte size and SHA-256 of the file.',
  produces: 'result',
  input: z.strictObject({
    path: z.string().min(1).describe('Destination file path; its directory must exist.'),
  }),
  result: z.strictObject({
    path: z.string(),
    record_count: z.number().int().nonnegative(),
    byte_size: z.number().int().nonnegative(),
    sha256: Sha256HexSchema,
  }),
  examples: [{ input: { path: '/tmp/rea-evidence.json' }, description: 'Export the session bundle.' }],
  effects: { ...NO_EFFECTS, writesFilesystem: true, mayDiscardData: true, idempotent: true },
  clientFeatures: { optional: ['progress'] },
  run: async (input, context) => {
    const ledger = ledgerOf(context);
    const records = ledger.list();
    context.progress.report(`exporting ${records.length} records`);
    return exportBundle(records, input.path, { signal: context.signal });
  },
});

/** `import_evidence_bundle`: validates a bundle file and retains its records. */
export const importEvidenceBundleTool = defineTool({
  name: 'import_evidence_bundle',
  title: 'Import an Evidence bundle',
  description:
    'Reads an Evidence bundle file, validates every record (ids are recomputed; a mismatch is ' +
    'evidence_integrity_mismatch) and retains the records in this connection, all or nothing, so retained ' +
    'references to them resolve. Identical records are imported once. Files above 256 MiB are refused with ' +
    'resource_constraint. Returns the ids added and those already retained.',
  produces: 'result',
  input: z.strictObject({
    path: z.string().min(1).describe('Path of a bundle written by export_evidence_bundle.'),
  }),
  result: z.strictObject({
    added: z.array(EvidenceIdSchema),
    already_present: z.array(EvidenceIdSchema),
    byte_size: z.number().int().nonnegative(),
  }),
  examples: [{ input: { path: '/tmp/rea-evidence.json' }, description: 'Import an exported bundle.' }],
  effects: { ...NO_EFFECTS, mutatesSession: true, idempotent: true },
  run: async (input, context) => {
    const ledger = ledgerOf(context);
    const bundle = await importBundle(input.path, { maxBytes: MAX_IMPORT_BYTES, signal: context.signal });
    // Verified a slice at a time; a cancelled import records nothing.
    const merged = await ledger.mergeAsync(bundle.records, context.signal);
    return { ...merged, byte_size: bundle.byte_size };
  },
});
