// What one module does, read from a completed analysis: what it imports (calls into), what imports
// it, what it exports, and the side effects observed statically in it (network, file system, process,
// IPC, DOM), with the URLs, dynamic code sites and feature-flag checks it holds.
import type { JavascriptApplication } from '../schemas.js';
import type { FoundModule } from './lookup.js';

/** Entries listed per list at most; beyond, `truncated` is true. */
export const MAX_SEMANTIC_ITEMS = 1_000;

/** The static semantics of one file or bundled module. */
export interface ModuleSemantics {
  node_id: string;
  kind: 'file' | 'bundled';
  file: string;
  exports: FoundModule['exports'];
  builtins: string[];
  calls: { to: string | null; specifier: string; kind: string; line: number }[];
  called_by: { from: string; specifier: string; kind: string; line: number }[];
  effects: {
    category: JavascriptApplication['effects'][number]['category'];
    api: string;
    node_id: string;
    line: number;
    column: number;
  }[];
  ipc: { api: string; channel: string | null; line: number }[];
  urls: { url: string; line: number }[];
  dynamic_code: { kind: string; line: number }[];
  feature_flags: { key: string; provider: string; api: string; node_id: string; line: number }[];
  truncated: boolean;
}

/**
 * The semantics of `module` (a file or bundled module of `app`). A file includes what its bundled
 * modules do; a bundled module's IPC, URL and dynamic code sites are those on the lines it spans.
 */
export function moduleSemantics(
  app: JavascriptApplication,
  module: FoundModule & { kind: 'file' | 'bundled' },
): ModuleSemantics {
  const id = module.node_id;
  const file = module.kind === 'file' ? id : module.module.file;
  const inner = new Set([id]);
  if (module.kind === 'file') for (const b of app.bundled_modules) if (b.file === id) inner.add(b.node_id);
  const span = module.kind === 'bundled' ? [module.module.start_line, module.module.end_line] : null;
  const here = (fact: { node_id: string; line: number }) =>
    fact.node_id === file && (span === null || (fact.line >= span[0]! && fact.line <= span[1]!));
  let truncated = false;
  const take = <T>(items: T[]): T[] => {
    if (items.length > MAX_SEMANTIC_ITEMS) truncated = true;
    return items.slice(0, MAX_SEMANTIC_ITEMS);
  };
  const result: ModuleSemantics = {
    node_id: id,
    kind: module.kind,
    file,
    exports: module.exports,
    builtins: module.kind === 'file' ? module.module.builtins : module.module.builtins,
    calls: take(
      app.edges
        .filter((e) => inner.has(e.from) && !(e.to !== null && inner.has(e.to)))
        .map((e) => ({ to: e.to, specifier: e.specifier, kind: e.kind, line: e.line })),
    ),
    called_by: take(
      app.edges
        .filter((e) => e.to === id)
        .map((e) => ({ from: e.from, specifier: e.specifier, kind: e.kind, line: e.line })),
    ),
    effects: take(
      app.effects
        .filter((e) => inner.has(e.node_id))
        .map((e) => ({ category: e.category, api: e.api, node_id: e.node_id, line: e.line, column: e.column })),
    ),
    ipc: take(app.ipc.filter(here).map((i) => ({ api: i.api, channel: i.channel, line: i.line }))),
    urls: take(app.urls.filter(here).map((u) => ({ url: u.url, line: u.line }))),
    dynamic_code: take(app.dynamic_code.filter(here).map((d) => ({ kind: d.kind, line: d.line }))),
    feature_flags: take(
      app.feature_flags
        .filter((f) => inner.has(f.node_id))
        .map((f) => ({ key: f.key, provider: f.provider, api: f.api, node_id: f.node_id, line: f.line })),
    ),
    truncated: false,
  };
  result.truncated = truncated;
  return result;
}
