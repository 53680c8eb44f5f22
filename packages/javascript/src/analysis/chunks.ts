// Chunks of one Rollup or Vite build import each other, but only some carry the bundler's markers (the
// entry holds Vite's preload helper; a lazy chunk may hold nothing but its modules). A file whose
// modules came from its source map alone takes the bundler of a marked chunk it imports or is imported
// by, so every chunk of the build is named alike. A chunk of one module and no marker is told from a
// compiled file (whose map names one source too) the same way: once linked to a chunk of a build, its
// one module is listed like every other chunk's, and the sites inside it are moved to it.
import type { BundledModule, Edge, FileModule, JavascriptApplication } from '../schemas.js';
import type { SingleModule } from './fileRecord.js';

const RANK: Partial<Record<NonNullable<FileModule['bundler']>, number>> = { 'source-map': 0, rollup: 1, vite: 2 };
const CHUNK_EDGES = new Set<Edge['kind']>(['import', 'dynamic-import', 'export-from', 'preload']);
/** The rank of an unmarked file whose map names one module: below every bundler, raised by a link. */
const CANDIDATE = -1;

/** The sites `nameChunks` moves into a promoted chunk's module. */
type Sites = Pick<JavascriptApplication, 'effects' | 'feature_flags'>;

/** True when `line`:`column` lies in the span of `single`. */
function holds(single: SingleModule, line: number, column: number): boolean {
  const [fromLine, fromColumn] = single.from;
  const [toLine, toColumn] = single.to;
  const afterStart = line > fromLine || (line === fromLine && column >= fromColumn);
  const beforeEnd = line < toLine || (line === toLine && column < toColumn);
  return afterStart && beforeEnd;
}

/**
 * Gives the files (and their bundled modules) linked by chunk edges the most specific bundler among
 * them, and lists the one module of each candidate in `singles` (keyed by file node id) that a link
 * shows to be a chunk, moving the edges and sites inside its span from the file to it.
 */
export function nameChunks(
  modules: FileModule[],
  bundled: BundledModule[],
  edges: Edge[],
  singles: ReadonlyMap<string, SingleModule> = new Map(),
  sites: Sites = { effects: [], feature_flags: [] },
): void {
  const files = new Map(modules.map((m) => [m.node_id, m]));
  const fileOf = new Map<string, string>(bundled.map((m) => [m.node_id, m.file]));
  const rank = new Map<FileModule, number>();
  for (const m of modules) {
    if (m.bundler != null && m.bundler in RANK) rank.set(m, RANK[m.bundler]!);
    else if (m.bundler === null && singles.has(m.node_id)) rank.set(m, CANDIDATE);
  }
  const links: [FileModule, FileModule][] = [];
  for (const edge of edges) {
    if (!CHUNK_EDGES.has(edge.kind) || edge.to === null) continue;
    const from = files.get(fileOf.get(edge.from) ?? edge.from);
    const to = files.get(edge.to);
    if (from !== undefined && to !== undefined && rank.has(from) && rank.has(to) && from !== to) links.push([from, to]);
  }
  let changed = links.length > 0;
  while (changed) {
    changed = false;
    for (const [a, b] of links) {
      const [low, high] = rank.get(a)! < rank.get(b)! ? [a, b] : [b, a];
      if (rank.get(low)! < rank.get(high)!) {
        low.bundler = high.bundler;
        rank.set(low, rank.get(high)!);
        changed = true;
      }
    }
  }
  for (const m of bundled) {
    const file = files.get(m.file);
    if (file?.bundler != null && m.bundler in RANK && file.bundler in RANK) m.bundler = file.bundler;
  }
  // The candidates a link showed to be chunks, then one pass over the edges and sites.
  const promoted = new Map<string, { single: SingleModule; id: string }>();
  for (const [fileId, single] of singles) {
    const file = files.get(fileId);
    if (file === undefined || file.bundler === null || !(file.bundler in RANK)) continue;
    bundled.push({ ...single.module, bundler: file.bundler });
    promoted.set(fileId, { single, id: single.module.node_id });
  }
  if (promoted.size === 0) return;
  const moved = (node: string, line: number, column: number): string => {
    const p = promoted.get(node);
    return p !== undefined && holds(p.single, line, column) ? p.id : node;
  };
  for (const edge of edges) edge.from = moved(edge.from, edge.line, edge.column);
  for (const site of [...sites.effects, ...sites.feature_flags])
    site.node_id = moved(site.node_id, site.line, site.column);
}
