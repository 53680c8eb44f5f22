import { ReaError, parseEvidenceAsync } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { validateCooperatively } from '@rea/provider-kit';
import { CHECK_EVERY, runCooperatively } from './layout/cooperative.js';
import type { Work } from './layout/cooperative.js';
import { ArtifactInventorySchema } from './schemas.js';
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

function contradicted(inventory: ArtifactInventory): Set<string> {
  const paths = new Set(inventory.integrity_contradictions.map((c) => c.path));
  for (const entry of inventory.entries) if (entry.integrity === 'contradicted') paths.add(entry.path);
  return paths;
}

function same(a: ArtifactEntry, b: ArtifactEntry): boolean {
  return a.kind === b.kind && a.sha256 === b.sha256 && a.size === b.size && a.symlink_target === b.symlink_target;
}

const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

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
  const l = new Map(left.inventory.entries.map((e) => [e.path, e]));
  const r = new Map(right.inventory.entries.map((e) => [e.path, e]));
  const lBad = contradicted(left.inventory);
  const rBad = contradicted(right.inventory);
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
  const paths = [...new Set([...l.keys(), ...r.keys()])].sort();
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
  out.added.sort(byPath);
  return out;
}
