// Library entry points. The implementations (and yauzl) load on first call, so importing the package
// stays cheap.
import type { EvidenceRecord } from '@rea/evidence';
import type { ExtractOptions, InspectOptions } from './options.js';
import type { ArtifactComparison } from './schemas.js';
import type { InspectOutcome } from './inventory/inspect.js';
import type { ExtractOutcome } from './extract/extract.js';

/**
 * Inventories the artifact at `path` (ZIP-based packages, ASAR, directories and `.app` bundles, DMG on
 * macOS, single files). Resolves to the subject identity, the complete inventory, coverage and
 * limitations. Rejects with a ReaError: `not_found`, `access_denied`, `unsupported_target` (malformed
 * or hostile structure), `artifact_integrity_mismatch` (fail-closed policy), `capability_unavailable`
 * (DMG off macOS), `cancelled`.
 */
export async function inspectArtifact(path: string, options?: InspectOptions): Promise<InspectOutcome> {
  const { inspect } = await import('./inventory/inspect.js');
  return inspect(path, options);
}

/**
 * Extracts the selected regular files of a ZIP or ASAR archive into a fresh directory (mode 0700)
 * created by this call and resolves to its path and the extraction result. Unsafe entries are refused
 * (`unsupported_target`, `details.reason: "unsafe-path"`) before anything is written; on any failure
 * the directory is removed. An absent `.asar.unpacked` companion file is `target_unavailable`.
 */
export async function extractArtifact(path: string, options?: ExtractOptions): Promise<ExtractOutcome> {
  const { extract } = await import('./extract/extract.js');
  return extract(path, options);
}

/**
 * Compares two sealed `inspect_artifact` Evidence records (verified first: a wrong id is
 * `evidence_integrity_mismatch`). Contradicted entries are classified as contradictions.
 */
export async function compareArtifactRecords(left: EvidenceRecord, right: EvidenceRecord): Promise<ArtifactComparison> {
  const { compareInventories, inventoryOf } = await import('./compare.js');
  return compareInventories(await inventoryOf(left, 'left'), await inventoryOf(right, 'right'));
}
