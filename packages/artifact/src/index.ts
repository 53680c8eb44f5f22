/**
 * @rea/artifact — every export of this module is public API.
 *
 * Containers (ZIP and ZIP-based packages, ASAR, directories, DMG, single files): inventory with
 * streamed hashes, integrity policies, safe extraction and comparison, and the tools built on them.
 */
export { ARTIFACT_PACKAGE_VERSION } from './version.js';
export { compareArtifactRecords, extractArtifact, inspectArtifact } from './api.js';
export type { InspectOutcome } from './inventory/inspect.js';
export type { ExtractOutcome } from './extract/extract.js';
export { DEFAULT_BUDGETS } from './options.js';
export type { ExtractOptions, InspectOptions } from './options.js';
export type { DmgOptions } from './engine/dmg.js';
export { listZipEntries, openZipEntries } from './entriesLazy.js';
export { createRawInflater } from './rawInflater.js';
export type { RawInflater } from './rawInflater.js';
export type {
  OpenZipEntriesOptions,
  ReadZipEntriesOptions,
  ZipEntries,
  ZipEntriesRead,
  ZipEntryContent,
  ZipEntryRecord,
} from './entries.js';
export type { UnsafePathProblem } from './errors.js';
export {
  ArtifactComparisonSchema,
  ArtifactEntrySchema,
  ArtifactInventorySchema,
  ArtifactInventorySummarySchema,
  ContainerFormatSchema,
  EntryIntegritySchema,
  ExtractedFileSchema,
  ExtractionResultSchema,
  IntegrityContradictionSchema,
  IntegrityPolicySchema,
  InventoryBudgetsSchema,
  NestedContainerSchema,
  PackageTypeSchema,
} from './schemas.js';
export type {
  ArtifactComparison,
  ArtifactEntry,
  ArtifactInventory,
  ArtifactInventorySummary,
  ContainerFormat,
  ExtractionResult,
  IntegrityContradiction,
  IntegrityPolicy,
  InventoryBudgets,
  NestedContainer,
  PackageType,
} from './schemas.js';
export { ARTIFACT_PROVIDER } from './tools/common.js';
export { compareArtifactsTool } from './tools/compareArtifacts.js';
export { extractArtifactTool } from './tools/extractArtifact.js';
export { inspectArtifactTool } from './tools/inspectArtifact.js';
export { ARTIFACT_CAPABILITIES, artifactTools, createArtifactProvider } from './provider.js';
export type { ArtifactProviderOptions } from './provider.js';
// The layout parser and its types, also published alone as @rea/artifact/layout.
export * from './layout/index.js';
export { inspectBinaryLayoutTool, MAX_LAYOUT_FILE_BYTES } from './layout/tool.js';
export { hexAddress, normalizeLayout } from './layout/normalize.js';
export {
  BinaryLayoutFacetResultSchema,
  BinaryLayoutResultSchema,
  BinaryLayoutSummarySchema,
  LayoutAddressSchema,
  LayoutCountsSchema,
  LayoutFacetSchema,
  LayoutHeadersSchema,
  LayoutLinkageSchema,
  LayoutMitigationsSchema,
} from './layout/schemas.js';
export type {
  BinaryLayoutFacetResult,
  BinaryLayoutResult,
  BinaryLayoutSummary,
  LayoutFacet,
} from './layout/schemas.js';
