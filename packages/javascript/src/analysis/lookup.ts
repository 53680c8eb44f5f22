// Finding one module of an analysis by what a caller knows of it: its exact node id, its path, a
// bundled module's id or a source map's source name.
import { posix } from 'node:path';
import type { BundledModule, ExportShape, FileModule, JavascriptApplication, SourceModule } from '../schemas.js';

/** A module of an analysis, whichever collection holds it. */
export type FoundModule =
  | { kind: 'file'; node_id: string; name: string; exports: ExportShape[]; module: FileModule }
  | { kind: 'bundled'; node_id: string; name: string; exports: ExportShape[]; module: BundledModule }
  | { kind: 'source'; node_id: string; name: string; exports: ExportShape[]; module: SourceModule };

/** Every module of `app` as a {@link FoundModule}. */
export function allModules(app: JavascriptApplication): FoundModule[] {
  return [
    ...app.modules.map((m) => ({
      kind: 'file' as const,
      node_id: m.node_id,
      name: m.path,
      exports: m.exports,
      module: m,
    })),
    ...app.bundled_modules.map((m) => ({
      kind: 'bundled' as const,
      node_id: m.node_id,
      name: m.module_id,
      exports: m.exports,
      module: m,
    })),
    ...app.source_modules.map((m) => ({
      kind: 'source' as const,
      node_id: m.node_id,
      name: m.source,
      exports: [],
      module: m,
    })),
  ];
}

/**
 * The modules `reference` names: the one with that exact node id, else every module whose path,
 * bundled id or source name equals it (several when a path is ambiguous).
 */
export function findModules(app: JavascriptApplication, reference: string): FoundModule[] {
  const all = allModules(app);
  const exact = all.filter((m) => m.node_id === reference);
  return exact.length > 0 ? exact : all.filter((m) => m.name === reference);
}

/** The paths the top-level manifest's main module may have, in the order Node tries them (none without a manifest). */
export function packageEntryPaths(app: JavascriptApplication): string[] {
  const manifest = [...app.manifests].sort((a, b) => a.path.split('/').length - b.path.split('/').length)[0];
  if (manifest === undefined) return [];
  const main = posix.normalize(posix.join(posix.dirname(manifest.path), manifest.main ?? 'index.js'));
  return [main, `${main}.js`, `${main}.cjs`, `${main}.mjs`, posix.join(main, 'index.js')];
}

/** The file module the top-level manifest's `main` names (`index.js` when it names none), or null. */
export function packageEntry(app: JavascriptApplication): FileModule | null {
  for (const candidate of packageEntryPaths(app)) {
    const found = app.modules.find((m) => m.path === candidate);
    if (found) return found;
  }
  return null;
}
