import { ReaError, parseEvidenceAsync } from '@rea/evidence';
import type { EvidenceRecord, Limitation } from '@rea/evidence';
import { validateCooperatively } from '@rea/provider-kit';
import { CHECK_EVERY, runCooperatively } from './layout/cooperative.js';
import type { Work } from './layout/cooperative.js';
import { ArtifactInventorySchema } from './schemas.js';
import { codeUnitOrder, sortInSlices } from './sortInSlices.js';
import type { ArtifactComparison, ArtifactEntry, ArtifactInventory } from './schemas.js';

/** One verified side of a comparison: its Evidence id, inventory and the coverage it was recorded with. */
export interface ComparedSide {
  evidenceId: string;
  inventory: ArtifactInventory;
  coverage: EvidenceRecord['coverage'];
}

/**
 * Verifies that `record` is a sealed, intact `inspect_artifact` record with a complete inventory and
 * returns that inventory. A wrong id is `evidence_integrity_mismatch`; another operation or a summary
 * view is `invalid_request`. A large record is verified a slice at a time; `signal` cancels it.
 */
export async function inventoryOf(
  record: unknown,
  side: 'left' | 'right',
  signal?: AbortSignal,
): Promise<ComparedSide> {
  const sealed: EvidenceRecord = await parseEvidenceAsync(record, signal, side);
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
  return {
    evidenceId: sealed.evidence_id,
    inventory: sealed.normalized_result as ArtifactInventory,
    coverage: sealed.coverage,
  };
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

/** Entries by logical path; a path listed more than once keeps every entry, in listing order. */
function* pathMap(entries: readonly ArtifactEntry[]): Work<Map<string, ArtifactEntry[]>> {
  const map = new Map<string, ArtifactEntry[]>();
  for (let i = 0; i < entries.length; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const entry = entries[i]!;
    const list = map.get(entry.path);
    if (list === undefined) map.set(entry.path, [entry]);
    else list.push(entry);
  }
  return map;
}

type Difference = ArtifactComparison['changed'][number]['differences'][number];

/**
 * What is known to differ between two entries at one path. Content differs only when both sides were
 * read; a mode differs only when both containers record one.
 */
function differences(a: ArtifactEntry, b: ArtifactEntry): Difference[] {
  const out: Difference[] = [];
  if (a.kind !== b.kind) out.push('kind');
  if (a.sha256 !== null && b.sha256 !== null && a.sha256 !== b.sha256) out.push('content');
  if (a.size !== b.size) out.push('size');
  if (a.mode !== null && b.mode !== null && a.mode !== b.mode) out.push('mode');
  if (a.symlink_target !== b.symlink_target) out.push('symlink_target');
  if (a.unpacked !== b.unpacked) out.push('unpacked');
  return out;
}

/** A file whose bytes were not read on that side: its content is unknown, never assumed equal. */
function unread(entry: ArtifactEntry): boolean {
  return entry.kind === 'file' && entry.sha256 === null;
}

/**
 * Compares two inventories entry by entry (by logical path): added, removed, changed (with what
 * differs: content, size, mode, …) and unchanged with their hashes. An entry contradicted on either
 * side is a contradiction, never unchanged or changed; one whose bytes were not read on a side, or
 * whose path a side lists more than once, is unverified, never unchanged.
 */
export function compareInventories(
  left: Pick<ComparedSide, 'evidenceId' | 'inventory'>,
  right: Pick<ComparedSide, 'evidenceId' | 'inventory'>,
  signal?: AbortSignal,
): Promise<ArtifactComparison> {
  return runCooperatively(comparison(left, right), signal);
}

function* comparison(
  left: Pick<ComparedSide, 'evidenceId' | 'inventory'>,
  right: Pick<ComparedSide, 'evidenceId' | 'inventory'>,
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
    unverified: [],
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
    const as = l.get(path) ?? [];
    const bs = r.get(path) ?? [];
    const a = as[0];
    const b = bs[0];
    if (lBad.has(path) || rBad.has(path)) {
      const sides: Array<'left' | 'right'> = [];
      if (lBad.has(path)) sides.push('left');
      if (rBad.has(path)) sides.push('right');
      out.contradictions.push({ path, sides, left_sha256: a?.sha256 ?? null, right_sha256: b?.sha256 ?? null });
    } else if (a === undefined) for (const e of bs) out.added.push({ path, kind: e.kind, sha256: e.sha256 });
    else if (b === undefined) for (const e of as) out.removed.push({ path, kind: e.kind, sha256: e.sha256 });
    else if (as.length > 1 || bs.length > 1) {
      // Which entry of one side corresponds to which of the other cannot be told by path.
      out.unverified.push({
        path,
        kind: b.kind,
        left_sha256: as.length === 1 ? a.sha256 : null,
        right_sha256: bs.length === 1 ? b.sha256 : null,
        reason: 'duplicate-path',
      });
    } else {
      const differ = differences(a, b);
      if (differ.length > 0)
        out.changed.push({
          path,
          kind: b.kind,
          left_sha256: a.sha256,
          right_sha256: b.sha256,
          left_size: a.size,
          right_size: b.size,
          differences: differ,
        });
      else if (unread(a) || unread(b))
        out.unverified.push({
          path,
          kind: b.kind,
          left_sha256: a.sha256,
          right_sha256: b.sha256,
          reason: 'content-not-read',
        });
      else out.unchanged.push({ path, kind: a.kind, sha256: a.sha256 });
    }
  }
  // Every list is in path order: the paths were visited in order.
  return out;
}

/**
 * The comparison's coverage and limitations: partial when either input inventory was partial (its
 * reasons are carried, prefixed with the side) or when some entries could not be judged
 * (contradictions, unverified entries).
 */
export function comparisonCoverage(
  left: Pick<ComparedSide, 'coverage'>,
  right: Pick<ComparedSide, 'coverage'>,
  comparison: ArtifactComparison,
): { coverage: EvidenceRecord['coverage']; limitations: Limitation[] } {
  const reasons: string[] = [];
  const limitations: Limitation[] = [];
  for (const [side, input] of [
    ['left', left],
    ['right', right],
  ] as const) {
    if (input.coverage.status !== 'partial') continue;
    const carried = input.coverage.reasons.length > 0 ? input.coverage.reasons : ['coverage partial'];
    for (const reason of carried) reasons.push(`${side} inventory: ${reason}`);
    limitations.push({
      kind: 'partial-input',
      message: `The ${side} inventory has partial coverage; entries it did not read or list cannot be compared.`,
      scope: side,
    });
  }
  if (comparison.contradictions.length > 0) {
    limitations.push({
      kind: 'integrity-contradiction',
      message: `${comparison.contradictions.length} entries are contradictions; their change cannot be judged.`,
    });
  }
  const count = (reason: string): number => comparison.unverified.filter((e) => e.reason === reason).length;
  const unreadCount = count('content-not-read');
  if (unreadCount > 0) {
    const message = `${unreadCount} entries present on both sides were not read on a side; whether they changed is unknown.`;
    reasons.push(message);
    limitations.push({ kind: 'content-not-read', message });
  }
  const duplicated = count('duplicate-path');
  if (duplicated > 0) {
    const message = `${duplicated} logical paths are listed more than once on a side; their entries cannot be paired.`;
    reasons.push(message);
    limitations.push({ kind: 'duplicate-path', message });
  }
  return { coverage: { status: reasons.length > 0 ? 'partial' : 'complete', reasons }, limitations };
}
