import { z } from 'zod';
import { EvidenceIdSchema, Sha256HexSchema } from '@rea/evidence';

/** How integrity contradictions are handled: fail closed (default) or record them and continue. */
export const IntegrityPolicySchema = z
  .enum(['fail-closed', 'record-and-continue'])
  .describe(
    'fail-closed (default) stops at the first contradiction with artifact_integrity_mismatch; record-and-continue quarantines contradicted entries, records them and continues with verified siblings.',
  );
/** See {@link IntegrityPolicySchema}. */
export type IntegrityPolicy = z.infer<typeof IntegrityPolicySchema>;

/** The container formats inventory recognises at the top level or nested. */
export const ContainerFormatSchema = z.enum(['zip', 'asar', 'directory', 'dmg', 'file']);
/** See {@link ContainerFormatSchema}. */
export type ContainerFormat = z.infer<typeof ContainerFormatSchema>;

/** ZIP-based package kinds identified by content, and directory bundles. */
export const PackageTypeSchema = z.enum([
  'apk',
  'ipa',
  'jar',
  'aar',
  'msix',
  'appx',
  'nuget',
  'vsix',
  'wheel',
  'app-bundle',
]);
/** See {@link PackageTypeSchema}. */
export type PackageType = z.infer<typeof PackageTypeSchema>;

/** Integrity state of one entry's bytes. */
export const EntryIntegritySchema = z.enum(['verified', 'contradicted', 'undeclared', 'unchecked']);

/** One entry of an inventory. Nested entries have logical paths `outer!/inner`. */
export const ArtifactEntrySchema = z.strictObject({
  path: z.string().describe('Logical path; a nested container\'s entries are prefixed "<container path>!/".'),
  kind: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number().int().nonnegative().describe('Uncompressed size in bytes (declared, or observed when it differs).'),
  compressed_size: z.number().int().nonnegative().nullable(),
  mode: z.number().int().nonnegative().nullable().describe('Unix mode bits when the container records them.'),
  symlink_target: z.string().nullable(),
  unpacked: z.boolean().describe('True for an ASAR entry stored in the .asar.unpacked companion directory.'),
  sha256: Sha256HexSchema.nullable().describe('Streamed SHA-256 of the observed bytes; null when not read.'),
  integrity: EntryIntegritySchema,
  nested_format: ContainerFormatSchema.nullable().describe('Format of a nested container held by this entry.'),
});
/** See {@link ArtifactEntrySchema}. */
export type ArtifactEntry = z.infer<typeof ArtifactEntrySchema>;

/** A recorded contradiction between declared integrity and observed bytes (record-and-continue). */
export const IntegrityContradictionSchema = z.strictObject({
  path: z.string(),
  algorithm: z.enum(['crc32', 'size', 'sha256', 'sha256-blocks', 'local-header']),
  declared: z.string(),
  observed: z.string(),
  observed_sha256: Sha256HexSchema.nullable(),
  trust: z.literal('contradicted').describe('The observed bytes contradict their declaration and are untrusted.'),
  provenance: z.enum(['zip-central-directory', 'asar-header']),
  unpacked: z.boolean(),
  quarantined: z.boolean().describe('True: the bytes were excluded from nested expansion.'),
});
/** See {@link IntegrityContradictionSchema}. */
export type IntegrityContradiction = z.infer<typeof IntegrityContradictionSchema>;

/** A nested container met during inventory and whether it was expanded. */
export const NestedContainerSchema = z.strictObject({
  path: z.string(),
  format: ContainerFormatSchema,
  expanded: z.boolean(),
  reason: z.string().nullable().describe('Why it was not expanded (budget, quarantine, …); null when expanded.'),
});
/** See {@link NestedContainerSchema}. */
export type NestedContainer = z.infer<typeof NestedContainerSchema>;

/** Bounds on nested expansion and reading. Hitting one makes coverage partial with the reason. */
export const InventoryBudgetsSchema = z.strictObject({
  max_depth: z.number().int().min(0).max(32),
  max_entries: z.number().int().min(1),
  max_bytes: z.number().int().min(0),
  max_nested_bytes: z.number().int().min(0),
});
/** See {@link InventoryBudgetsSchema}. */
export type InventoryBudgets = z.infer<typeof InventoryBudgetsSchema>;

/** The complete inventory: `normalized_result` of `inspect_artifact` with `detail: "complete"`. */
export const ArtifactInventorySchema = z.strictObject({
  view: z.literal('complete'),
  format: ContainerFormatSchema,
  package_type: PackageTypeSchema.nullable(),
  file_type: z.string().nullable().describe('Magic-byte type of a single file (elf, pe, mach-o, …).'),
  integrity_policy: IntegrityPolicySchema,
  budgets: InventoryBudgetsSchema,
  entry_count: z.number().int().nonnegative(),
  file_count: z.number().int().nonnegative(),
  total_size: z.number().int().nonnegative(),
  entries: z.array(ArtifactEntrySchema),
  integrity_contradictions: z.array(IntegrityContradictionSchema),
  nested_containers: z.array(NestedContainerSchema),
});
/** See {@link ArtifactInventorySchema}. */
export type ArtifactInventory = z.infer<typeof ArtifactInventorySchema>;

/** The summary view returned for `detail: "summary"`; the complete record is retained by the session. */
export const ArtifactInventorySummarySchema = z.strictObject({
  view: z.literal('summary'),
  parent_evidence_id: EvidenceIdSchema,
  format: ContainerFormatSchema,
  package_type: PackageTypeSchema.nullable(),
  file_type: z.string().nullable(),
  integrity_policy: IntegrityPolicySchema,
  entry_count: z.number().int().nonnegative(),
  file_count: z.number().int().nonnegative(),
  total_size: z.number().int().nonnegative(),
  contradiction_count: z.number().int().nonnegative(),
  nested_container_count: z.number().int().nonnegative(),
  digest: Sha256HexSchema.describe('SHA-256 of the canonical JSON of the complete inventory.'),
});
/** See {@link ArtifactInventorySummarySchema}. */
export type ArtifactInventorySummary = z.infer<typeof ArtifactInventorySummarySchema>;

/** One file written by extraction. */
export const ExtractedFileSchema = z.strictObject({
  path: z.string(),
  size: z.number().int().nonnegative(),
  sha256: Sha256HexSchema,
  unpacked: z.boolean(),
  integrity: EntryIntegritySchema,
});

/** `normalized_result` of `extract_artifact`. The output directory is a machine-local fact. */
export const ExtractionResultSchema = z.strictObject({
  format: ContainerFormatSchema,
  integrity_policy: IntegrityPolicySchema,
  files: z.array(ExtractedFileSchema),
  skipped: z.array(z.strictObject({ path: z.string(), reason: z.string() })),
  integrity_contradictions: z.array(IntegrityContradictionSchema),
});
/** See {@link ExtractionResultSchema}. */
export type ExtractionResult = z.infer<typeof ExtractionResultSchema>;

const hashed = z.strictObject({ path: z.string(), kind: z.string(), sha256: Sha256HexSchema.nullable() });

/** What differs between the two sides of a changed entry. */
const EntryDifferenceSchema = z
  .enum(['kind', 'content', 'size', 'mode', 'symlink_target', 'unpacked'])
  .describe(
    'kind, content (SHA-256), size, mode (Unix mode bits, including an executable flag), symlink_target, or unpacked (moved into or out of the .asar.unpacked companion).',
  );

/**
 * `normalized_result` of `compare_artifacts`. A contradicted entry, or one whose sameness cannot be
 * judged (`unverified`), is never unchanged.
 */
export const ArtifactComparisonSchema = z.strictObject({
  left_evidence_id: EvidenceIdSchema,
  right_evidence_id: EvidenceIdSchema,
  added: z.array(hashed),
  removed: z.array(hashed),
  changed: z.array(
    z.strictObject({
      path: z.string(),
      kind: z.string(),
      left_sha256: Sha256HexSchema.nullable(),
      right_sha256: Sha256HexSchema.nullable(),
      left_size: z.number().int().nonnegative(),
      right_size: z.number().int().nonnegative(),
      differences: z.array(EntryDifferenceSchema).describe('What differs; never empty.'),
    }),
  ),
  unchanged: z.array(hashed),
  unverified: z
    .array(
      z.strictObject({
        path: z.string(),
        kind: z.string(),
        left_sha256: Sha256HexSchema.nullable(),
        right_sha256: Sha256HexSchema.nullable(),
        reason: z.enum(['content-not-read', 'duplicate-path']),
      }),
    )
    .describe(
      'Entries present on both sides whose sameness cannot be judged: content-not-read (the bytes were not read on a side: a budget, an unreadable entry, a missing .asar.unpacked file), or duplicate-path (a side lists more than one entry at the path). Never unchanged.',
    ),
  contradictions: z.array(
    z.strictObject({
      path: z.string(),
      sides: z.array(z.enum(['left', 'right'])),
      left_sha256: Sha256HexSchema.nullable(),
      right_sha256: Sha256HexSchema.nullable(),
    }),
  ),
});
/** See {@link ArtifactComparisonSchema}. */
export type ArtifactComparison = z.infer<typeof ArtifactComparisonSchema>;
