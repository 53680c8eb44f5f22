// Tracing a feature through a completed analysis: from a seed (a module, a string, an exported symbol,
// a URL, an IPC channel or a feature flag) to the modules and sites that carry it, the IPC channels that connect
// processes, the pages that load it, and the import paths from the application's entry points.
import type { JavascriptApplication } from '../schemas.js';

/** What to trace from, and how to match its value. */
export interface TraceSeed {
  kind: 'module' | 'string' | 'symbol' | 'url' | 'ipc_channel' | 'feature_flag';
  value: string;
  match: 'exact' | 'prefix' | 'regex';
}

/** One place where the seed was observed. */
export interface TraceSite {
  node_id: string;
  kind: 'module' | 'string' | 'export' | 'url' | 'ipc' | 'flag';
  detail: string;
  line: number | null;
  column: number | null;
}

/** The trace: seed sites, the modules involved, IPC channels, loading pages and import paths. */
export interface FeatureTrace {
  sites: TraceSite[];
  modules: string[];
  ipc_channels: { channel: string; sites: { node_id: string; api: string; line: number }[] }[];
  pages: string[];
  paths: string[][];
  truncated: boolean;
}

/** Sites and paths listed at most; beyond, `truncated` is true. */
export const MAX_TRACE_ITEMS = 1_000;

/** A matcher for `seed`: exact, prefix, or a regular expression (invalid patterns are the caller's check). */
export function matcher(seed: TraceSeed): (text: string | null) => boolean {
  if (seed.match === 'regex') {
    const pattern = new RegExp(seed.value, 'u');
    return (text) => text !== null && pattern.test(text);
  }
  if (seed.match === 'prefix') return (text) => text !== null && text.startsWith(seed.value);
  return (text) => text === seed.value;
}

function seedSites(app: JavascriptApplication, seed: TraceSeed): TraceSite[] {
  const matches = matcher(seed);
  const sites: TraceSite[] = [];
  const at = (node_id: string, kind: TraceSite['kind'], detail: string, line: number | null, column: number | null) =>
    sites.push({ node_id, kind, detail, line, column });
  if (seed.kind === 'module') {
    for (const m of app.modules) if (matches(m.path) || matches(m.node_id)) at(m.node_id, 'module', m.path, null, null);
    for (const b of app.bundled_modules)
      if (matches(b.module_id) || matches(b.node_id)) at(b.node_id, 'module', b.module_id, b.start_line, 0);
    for (const s of app.source_modules)
      if (matches(s.source) || matches(s.node_id)) at(s.map, 'module', s.source, null, null);
  } else if (seed.kind === 'string') {
    for (const s of app.strings) if (matches(s.value)) at(s.node_id, 'string', s.value, s.line, s.column);
  } else if (seed.kind === 'url') {
    for (const u of app.urls) if (matches(u.url) || matches(u.host)) at(u.node_id, 'url', u.url, u.line, u.column);
  } else if (seed.kind === 'ipc_channel') {
    for (const i of app.ipc) if (matches(i.channel)) at(i.node_id, 'ipc', `${i.api} ${i.channel}`, i.line, i.column);
  } else if (seed.kind === 'feature_flag') {
    for (const f of app.feature_flags) if (matches(f.key)) at(f.node_id, 'flag', `${f.api} ${f.key}`, f.line, f.column);
  } else {
    for (const m of [...app.modules, ...app.bundled_modules]) {
      for (const e of m.exports) if (matches(e.name)) at(m.node_id, 'export', `${e.system} ${e.name}`, null, null);
    }
  }
  return sites;
}

/**
 * Traces `seed` through `app`: the sites that match it; the modules holding them; the IPC channels
 * (the matched ones for an IPC seed, else those the modules use) with all their sites (so a renderer's invoke reaches the main process handler);
 * the HTML pages that load the modules; and for each module the shortest import path from an entry
 * (a module with an Electron role or one nothing imports), found by walking importers backwards.
 */
export function traceFeature(app: JavascriptApplication, seed: TraceSeed): FeatureTrace {
  const sites = seedSites(app, seed);
  const modules = new Set(sites.map((s) => s.node_id));
  // An IPC seed names its channels; any other seed brings the channels its modules use.
  const matches = matcher(seed);
  const channels = new Set(
    app.ipc
      .filter((i) => i.channel !== null && (seed.kind === 'ipc_channel' ? matches(i.channel) : modules.has(i.node_id)))
      .map((i) => i.channel!),
  );
  const ipc_channels = [...channels].sort().map((channel) => ({
    channel,
    sites: app.ipc.filter((i) => i.channel === channel).map((i) => ({ node_id: i.node_id, api: i.api, line: i.line })),
  }));
  for (const c of ipc_channels) for (const s of c.sites) modules.add(s.node_id);
  const importers = new Map<string, string[]>();
  for (const e of app.edges) if (e.to !== null) importers.set(e.to, [...(importers.get(e.to) ?? []), e.from]);
  // A bundled module belongs to its file, which its importers import.
  for (const b of app.bundled_modules) if (!importers.has(b.node_id)) importers.set(b.node_id, [b.file]);
  const roles = new Set(app.roles.map((r) => r.node_id));
  const paths: string[][] = [];
  for (const start of [...modules].sort()) {
    const previous = new Map<string, string | null>([[start, null]]);
    const queue = [start];
    let end: string | null = null;
    while (queue.length > 0 && end === null) {
      const node = queue.shift()!;
      const from = importers.get(node) ?? [];
      if (roles.has(node) || from.length === 0) end = node;
      for (const next of from) {
        if (previous.has(next)) continue;
        previous.set(next, node);
        queue.push(next);
      }
    }
    const path: string[] = [];
    for (let node: string | null = end; node !== null; node = previous.get(node) ?? null) path.push(node);
    if (path.length > 1) paths.push(path);
  }
  const pages = app.html_entries
    .filter((h) =>
      h.scripts.some(
        (s) => s.node_id !== null && (modules.has(s.node_id) || paths.some((p) => p.includes(s.node_id!))),
      ),
    )
    .map((h) => h.node_id);
  const truncated = sites.length > MAX_TRACE_ITEMS || paths.length > MAX_TRACE_ITEMS;
  return {
    sites: sites.slice(0, MAX_TRACE_ITEMS),
    modules: [...modules].sort(),
    ipc_channels,
    pages,
    paths: paths.slice(0, MAX_TRACE_ITEMS),
    truncated,
  };
}
