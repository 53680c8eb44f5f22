import { readAsarHeader } from '../engine/asar.js';
import type { AsarNode } from '../engine/asar.js';
import { entryNameProblem, nestedPath, symlinkEscapes } from '../paths.js';
import type { ArtifactEntry } from '../schemas.js';
import type { ByteSource } from '../source.js';
import type { InventoryState } from './state.js';
import { badSegment, readAsarEntry } from './asarEntry.js';
import type { CompanionReader } from './asarEntry.js';
import { considerNested } from './nested.js';

function entryOf(node: AsarNode, path: string): ArtifactEntry {
  return {
    path,
    kind: node.kind,
    size: node.size,
    compressed_size: null,
    mode: node.kind === 'file' ? (node.executable ? 0o100755 : 0o100644) : null,
    symlink_target: node.link,
    unpacked: node.unpacked,
    sha256: null,
    integrity: node.kind === 'file' ? 'unchecked' : 'undeclared',
    nested_format: null,
  };
}

async function inventoryNode(
  state: InventoryState,
  source: ByteSource,
  companion: string | CompanionReader | null,
  node: AsarNode,
  prefix: string,
  depth: number,
): Promise<void> {
  const path = nestedPath(prefix, node.path);
  const entry = entryOf(node, path);
  const unsafe = node.segments.some(badSegment) || entryNameProblem(node.path) !== null;
  if (unsafe) state.partial(`unsafe entry path ${JSON.stringify(path)}; it cannot be extracted`, 'unsafe-path', path);
  if (node.kind === 'symlink' && node.link !== null) {
    state.link(prefix, 'archive', { path: node.path, target: node.link, fromRoot: true });
  }
  if (node.kind === 'symlink' && node.link !== null && symlinkEscapes('', node.link)) {
    state.partial(
      `symlink ${JSON.stringify(path)} points outside the archive; it cannot be extracted`,
      'unsafe-path',
      path,
    );
  }
  if (node.kind !== 'file' || unsafe) {
    state.add(entry);
    return;
  }
  if (!state.mayRead(node.size)) {
    state.partial(
      `byte budget reached at ${JSON.stringify(path)}: max_bytes ${state.budgets.max_bytes}; its bytes were not read`,
      'budget-reached',
      path,
    );
    state.add(entry);
    return;
  }
  const read = await readAsarEntry(source, companion, node, path, {
    signal: state.signal,
    collectUpTo: state.nestedRoom(),
  });
  if (read.status === 'missing') {
    state.partial(
      `unpacked entry ${JSON.stringify(path)} could not be read: ${read.reason}`,
      'unpacked-companion-missing',
      path,
    );
    state.add(entry);
    return;
  }
  state.bytesRead += read.digest.size;
  entry.sha256 = read.digest.sha256;
  entry.size = read.digest.size;
  if (read.contradiction) {
    entry.integrity = 'contradicted';
    state.contradiction(read.contradiction);
    state.add(entry);
    return;
  }
  entry.integrity = node.integrity ? 'verified' : 'undeclared';
  if (!state.add(entry)) return;
  await considerNested(state, entry, read.digest, path, depth);
}

/** Inventories an ASAR (a file with its optional `.asar.unpacked` companion, or nested bytes). */
export async function inventoryAsar(
  state: InventoryState,
  source: ByteSource,
  companion: string | CompanionReader | null,
  prefix: string,
  depth: number,
): Promise<void> {
  const header = await readAsarHeader(source, state.remainingEntries(), state.signal);
  if (header.truncated) state.entryBudget(prefix === '' ? 'the archive' : prefix);
  for (const node of header.entries) {
    await state.pacer.turn('inventory');
    await inventoryNode(state, source, companion, node, prefix, depth);
  }
}
