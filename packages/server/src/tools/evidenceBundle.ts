import { z } from 'zod';
import { EvidenceIdSchema, EvidenceRecordSchema, Sha256HexSchema } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { BUNDLE_FORMAT, BUNDLE_VERSION, exportBundle, importBundle } from '../bundle.js';
import { hostOf } from '../host.js';
import { NO_EFFECTS } from './effects.js';

/** Largest bundle file `import_evidence_bundle` reads. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

const FiltersSchema = z.strictObject({
  evidence_id: EvidenceIdSchema.optional().describe('Exact Evidence id.'),
  operation: z.string().min(1).optional().describe('Exact producing operation, e.g. "analyze_function".'),
  target_sha256: Sha256HexSchema.optional().describe('Exact SHA-256 of the observed artifact.'),
  analysis_profile_digest: Sha256HexSchema.optional().describe('Exact analysis profile digest.'),
  procedure_address: z.string().min(1).optional().describe('Exact native procedure address, e.g. "0x401000".'),
});

const SummarySchema = z.strictObject({
  evidence_id: EvidenceIdSchema,
  operation: z.string(),
  target_sha256: Sha256HexSchema.nullable(),
  provider: z.strictObject({ id: z.string(), name: z.string(), version: z.string() }),
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
    'use export_evidence_bundle instead.',
  produces: 'result',
  input: z
    .strictObject({
      detail: z
        .enum(['complete', 'summary'])
        .optional()
        .describe('"complete" (default): every record in full; "summary": summaries without payloads.'),
      filters: FiltersSchema.optional().describe('Exact-match filters; only with detail "summary".'),
    })
    .refine((value) => value.filters === undefined || value.detail === 'summary', {
      message: 'filters require detail "summary"',
      path: ['filters'],
    }),
  result: z.strictObject({
    format: z.literal(BUNDLE_FORMAT),
    version: z.literal(BUNDLE_VERSION),
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
    const { session } = hostOf(context);
    if (input.detail === 'summary') {
      return {
        format: BUNDLE_FORMAT,
        version: BUNDLE_VERSION,
        detail: 'summary' as const,
        records: session.ledger.summaries(input.filters ?? {}),
      };
    }
    return { format: BUNDLE_FORMAT, records: session.ledger.list(), version: BUNDLE_VERSION };
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
    records: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    sha256: Sha256HexSchema,
  }),
  examples: [{ input: { path: '/tmp/rea-evidence.json' }, description: 'Export the session bundle.' }],
  effects: { ...NO_EFFECTS, writesFilesystem: true, mayDiscardData: true, idempotent: true },
  run: async (input, context) => {
    const { session } = hostOf(context);
    const records = session.ledger.list();
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
    'evidence_integrity_mismatch) and retains the records in this connection, so retained references to them ' +
    'resolve. Identical records are imported once. Files above 512 MiB are refused with resource_constraint. ' +
    'Returns the imported ids and how many were already retained.',
  produces: 'result',
  input: z.strictObject({
    path: z.string().min(1).describe('Path of a bundle written by export_evidence_bundle.'),
  }),
  result: z.strictObject({
    imported: z.number().int().nonnegative(),
    already_retained: z.number().int().nonnegative(),
    evidence_ids: z.array(EvidenceIdSchema),
  }),
  examples: [{ input: { path: '/tmp/rea-evidence.json' }, description: 'Import an exported bundle.' }],
  effects: { ...NO_EFFECTS, mutatesSession: true, idempotent: true },
  run: async (input, context) => {
    const { session } = hostOf(context);
    const records = await importBundle(input.path, { maxBytes: MAX_IMPORT_BYTES, signal: context.signal });
    if (context.signal.aborted) return { imported: 0, already_retained: 0, evidence_ids: [] };
    let already = 0;
    for (const record of records) if (session.ledger.get(record.evidence_id)) already += 1;
    for (const record of records) session.ledger.retain(record);
    return {
      imported: records.length - already,
      already_retained: already,
      evidence_ids: records.map((record) => record.evidence_id),
    };
  },
});
