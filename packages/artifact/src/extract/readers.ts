import { Pacer } from '../layout/cooperative.js';
import { logicalPath } from '../paths.js';
import type { AsarNode } from '../engine/asar.js';
import type { ZipEntryInfo, ZipReader } from '../engine/zip.js';
import type { ObservedContradiction } from '../integrity.js';
import { readAsarEntry } from '../inventory/asarEntry.js';
import { readZipEntry } from '../inventory/zipEntry.js';
import type { ByteSource } from '../source.js';
import { companionMissing, refuseUnreadable } from './nested.js';
import type { PlannedEntry } from './plan.js';

/** Reads one planned entry, handing its bytes to `write` as they are verified. */
export type Reader = (
  entry: PlannedEntry<unknown>,
  write: (chunk: Buffer) => Promise<void>,
) => Promise<{ size: number; sha256: string | null; contradiction: ObservedContradiction | null }>;

/** A ZIP's entries as extraction plans them (symlink targets read). */
export async function zipPlan(
  reader: ZipReader,
  infos: ZipEntryInfo[],
  signal: AbortSignal | undefined,
): Promise<PlannedEntry<ZipEntryInfo>[]> {
  const out: PlannedEntry<ZipEntryInfo>[] = [];
  const pacer = new Pacer(signal);
  for (const info of infos) {
    await pacer.turn('extraction');
    const path = logicalPath(info.name);
    let linkTarget: string | null = null;
    if (info.kind === 'symlink') {
      const read = await readZipEntry(reader, info, path, { signal, collect: { upTo: 4096, containersOnly: false } });
      linkTarget = read.digest?.collected?.toString('utf8') ?? '/';
    }
    out.push({
      path,
      kind: info.kind,
      linkTarget,
      linkFromRoot: false,
      executable: ((info.mode ?? 0) & 0o111) !== 0,
      declaredSize: info.uncompressedSize,
      compressedSize: info.compressedSize,
      handle: info,
    });
  }
  return out;
}

/** Reads ZIP entries for extraction. */
export function zipReader(reader: ZipReader, signal: AbortSignal | undefined): Reader {
  return async (entry, write) => {
    const info = entry.handle as ZipEntryInfo;
    refuseUnreadable(info, entry.path);
    const read = await readZipEntry(reader, info, entry.path, { signal, onChunk: write });
    return { size: read.digest?.size ?? 0, sha256: read.digest?.sha256 ?? null, contradiction: read.contradiction };
  };
}

/** An ASAR's entries as extraction plans them. */
export function asarPlan(nodes: AsarNode[]): PlannedEntry<AsarNode>[] {
  return nodes.map((node) => ({
    path: node.path.replace(/\\/g, '/'),
    kind: node.kind,
    linkTarget: node.link,
    linkFromRoot: true,
    executable: node.executable,
    declaredSize: node.size,
    compressedSize: null,
    handle: node,
  }));
}

/** Reads ASAR entries (and their unpacked companions) for extraction. */
export function asarReader(source: ByteSource, companion: string | null, signal: AbortSignal | undefined): Reader {
  return async (entry, write) => {
    const node = entry.handle as AsarNode;
    const read = await readAsarEntry(source, companion, node, entry.path, { signal, onChunk: write });
    if (read.status === 'missing') throw companionMissing(entry.path, read.reason);
    return { size: read.digest.size, sha256: read.digest.sha256, contradiction: read.contradiction };
  };
}
