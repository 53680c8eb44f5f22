// Chunks of one Rollup or Vite build import each other, but only some carry the bundler's markers (the
// entry holds Vite's preload helper; a lazy chunk may hold nothing but its modules). A file whose
// modules came from its source map alone takes the bundler of a marked chunk it imports or is imported
// by, so every chunk of the build is named alike.
import type { BundledModule, Edge, FileModule } from '../schemas.js';

const RANK: Partial<Record<NonNullable<FileModule['bundler']>, number>> = { 'source-map': 0, rollup: 1, vite: 2 };
const CHUNK_EDGES = new Set<Edge['kind']>(['import', 'dynamic-import', 'export-from', 'preload']);

/** Gives the files (and their bundled modules) linked by chunk edges the most specific bundler among them. */
export function nameChunks(modules: FileModule[], bundled: BundledModule[], edges: readonly Edge[]): void {
  const files = new Map(modules.map((m) => [m.node_id, m]));
  const fileOf = new Map<string, string>(bundled.map((m) => [m.node_id, m.file]));
  const links: [FileModule, FileModule][] = [];
  for (const edge of edges) {
    if (!CHUNK_EDGES.has(edge.kind) || edge.to === null) continue;
    const from = files.get(fileOf.get(edge.from) ?? edge.from);
    const to = files.get(edge.to);
    const ranked = (m: FileModule | undefined): m is FileModule => m?.bundler != null && m.bundler in RANK;
    if (ranked(from) && ranked(to) && from !== to) links.push([from, to]);
  }
  let changed = links.length > 0;
  while (changed) {
    changed = false;
    for (const [a, b] of links) {
      const [low, high] = RANK[a.bundler!]! < RANK[b.bundler!]! ? [a, b] : [b, a];
      if (RANK[low.bundler!]! < RANK[high.bundler!]!) {
        low.bundler = high.bundler;
        changed = true;
      }
    }
  }
  for (const m of bundled) {
    const file = files.get(m.file);
    if (file?.bundler != null && m.bundler in RANK && file.bundler in RANK) m.bundler = file.bundler;
  }
}
