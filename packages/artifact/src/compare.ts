import { ReaError, parseEvidenceAsync } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { validateCooperatively } from '@rea/provider-kit';
import { CHECK_EVERY, runCooperatively } from './layout/cooperative.js';
import type { Work } from './layout/cooperative.js';
import { ArtifactInventorySchema } from './schemas.js';
import { codeUnitOrder, sortInSlices } from './sortInSlices.js';
import type { ArtifactComparison, ArtifactEntry, ArtifactInventory } from './schemas.js';

/**
 * Verifies that `record` is a sealed, intact `inspect_artifact` record with a complete inventory and
 * returns that inventory. A wrong id is `evidence_integrity_mismatch`; another operation or a summary
 * view is `invalid_request`. A large record is verified a slice at a time; `signal` cancels it.
 */
export async function inventoryOf(
  record: unknown,
  side: 'left' | 'right',
  signal?: AbortSignal,
): Promise<{ evidenceId: string; inventory: ArtifactInventory }> {
  const sealed: EvidenceRecord = await parseEvidenceAsync(record, signal);
  if (sealed.operation !== 'inspect_artifact') {
    throw new ReaError('invalid_request', `The ${side} record is ${sealed.operation} Evidence, not inspect_artifact.`, {
      details: { reason: 'wrong-operation', side, operation: sealed.operation, evidence_id: sealed.evidence_id },
    });
  }
  const issues = await validateCooperatively(ArtifactInventorySchema, sealed.normalized_result, signal);
  if (issues !== null) {
    throw new ReaError(
      'invalid_request',
      `The ${side} record does not hold a complete inventory (summary views cannot be compared).`,
      {
        details: { reason: 'not-a-complete-inventory', side, evidence_id: sealed.evidence_id },
      },
    );
  }
  return { evidenceId: sealed.evidence_id, inventory: sealed.normalized_result as ArtifactInventory };
}

function* contradicted(inventory: ArtifactInventory): Work<Set<string>> {
  const paths = new Set(inventory.integrity_contradictions.map((c) => c.path));
  const entries = inventory.entries;
  for (let i = 0; i < entries.length; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    if (entries[i]!.integrity === 'contradicted') paths.add(entries[i]!.path);
  }
  return paths;
}

function* pathMap(entries: readonly ArtifactEntry[]): Work<Map<string, ArtifactEntry>> {
  const map = new Map<string, ArtifactEntry>();
  for (let i = 0; i < entries.length; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    map.set(entries[i]!.path, entries[i]!);
  }
  return map;
}

function same(a: ArtifactEntry, b: ArtifactEntry): boolean {
  return a.kind === b.kind && a.sha256 === b.sha256 && a.size === b.size && a.symlink_target === b.symlink_target;
}

/**
 * Compares two inventories entry by entry (by logical path): added, removed, changed and unchanged with
 * their hashes. An entry contradicted on either side is a contradiction, never unchanged or changed.
 */
export function compareInventories(
  left: { evidenceId: string; inventory: ArtifactInventory },
  right: { evidenceId: string; inventory: ArtifactInventory },
  signal?: AbortSignal,
): Promise<ArtifactComparison> {
  return runCooperatively(comparison(left, right), signal);
}

function* comparison(
  left: { evidenceId: string; inventory: ArtifactInventory },
  right: { evidenceId: string; inventory: ArtifactInventory },
): Work<ArtifactComparison> {
  // Path maps, contradiction sets and the sorted union of paths are built in slices too: two
  // inventories of hundreds of thousands of entries must not hold the event loop.
  const l = yield* pathMap(left.inventory.entries);
  const r = yield* pathMap(right.inventory.entries);
  const lBad = yield* contradicted(left.inventory);
  const rBad = yield* contradicted(right.inventory);
  const out: ArtifactComparison = {
    left_evidence_id: left.evidenceId,
    right_evidence_id: right.evidenceId,
    added: [],
    removed: [],
    changed: [],
    unchanged: [],
    contradictions: [],
  };
  yield 'comparison';
  const union = [...l.keys()];
  let at = 0;
  for (const path of r.keys()) {
    if ((at += 1) % CHECK_EVERY === 0) yield;
    if (!l.has(path)) union.push(path);
  }
  const paths = yield* sortInSlices(union, codeUnitOrder);
  yield 'comparison';
  for (let at = 0; at < paths.length; at += 1) {
    if (at % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const path = paths[at]!;
    const a = l.get(path);
    const b = r.get(path);
    if (lBad.has(path) || rBad.has(path)) {
      const sides: Array<'left' | 'right'> = [];
      if (lBad.has(path)) sides.push('left');
      if (rBad.has(path)) sides.push('right');
      out.contradictions.push({ path, sides, left_sha256: a?.sha256 ?? null, right_sha256: b?.sha256 ?? null });
    } else if (a === undefined && b !== undefined) out.added.push({ path, kind: b.kind, sha256: b.sha256 });
    else if (b === undefined && a !== undefined) out.removed.push({ path, kind: a.kind, sha256: a.sha256 });
    else if (a !== undefined && b !== undefined) {
      if (same(a, b)) out.unchanged.push({ path, kind: a.kind, sha256: a.sha256 });
      else
        out.changed.push({
          path,
          kind: b.kind,
          left_sha256: a.sha256,
          right_sha256: b.sha256,
          left_size: a.size,
          right_size: b.size,
        });
    }
  }
  // Every list is in path order: the paths were visited in order.
  return out;
}
