import { isReaError } from '@rea/evidence';
import { containerFromHead } from '../detect.js';
import type { Digest } from '../hashing.js';
import type { ArtifactEntry } from '../schemas.js';
import type { InventoryState } from './state.js';
import type { CompanionReader } from './asarEntry.js';

/**
 * Expands a verified entry that holds a container, within the depth and nested-byte budgets. A nested
 * container that cannot be read is recorded (coverage partial) rather than failing its parent; an
 * integrity mismatch under fail-closed and cancellation still propagate.
 */
export async function considerNested(
  state: InventoryState,
  entry: ArtifactEntry,
  digest: Digest,
  path: string,
  depth: number,
  companion: CompanionReader | null = null,
): Promise<void> {
  const format = containerFromHead(digest.head);
  if (format === null) return;
  entry.nested_format = format;
  const skip = (reason: string): void => {
    state.nested.push({ path, format, expanded: false, reason });
    state.partial(`nested ${format} ${JSON.stringify(path)} was not expanded: ${reason}`, 'nested-not-expanded', path);
  };
  if (depth + 1 > state.budgets.max_depth) return skip(`depth budget max_depth ${state.budgets.max_depth} reached`);
  if (digest.collected === null)
    return skip(`larger than the room left in max_nested_bytes ${state.budgets.max_nested_bytes}`);
  if (state.remainingEntries() === 0) return skip('entry budget reached');
  state.heldBytes += digest.collected.length;
  try {
    await state.expand(state, digest.collected, format, path, depth + 1, companion);
    state.nested.push({ path, format, expanded: true, reason: null });
  } catch (error) {
    if (!isReaError(error) || error.code === 'artifact_integrity_mismatch' || error.code === 'cancelled') throw error;
    skip(error.message);
  } finally {
    state.heldBytes -= digest.collected.length;
  }
}
