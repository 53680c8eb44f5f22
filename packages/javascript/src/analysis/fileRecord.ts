// What one script contributes to the analysis, computed where it was parsed: its file module, the
// bundled and source modules inside it, its facts, its imports (resolved later, over the whole
// input) and its unknowns. A record is plain data, so a worker can hand each one over as soon as the
// script is done (see ../worker/entry.ts) and a heap exhaustion later loses none of them.
import { createHash } from 'node:crypto';
import type { BundledModule, Edge, FileModule, JavascriptApplication, SourceModule } from '../schemas.js';
import { holderIndex } from './holders.js';
import type { RecoveredBundle, RecoveredModule } from './bundles.js';
import type { ChunkLinks } from './chunkLinks.js';
import { builtinOf } from './facts.js';
import type { FileFacts } from './facts.js';
import { fileNodeId } from './inventory.js';
import type { SourceMapResolution } from './sourceMaps.js';
import type { StarExport } from './starExports.js';

/** An import waiting for resolution over the whole input. */
export interface PendingEdge {
  from: string;
  file: string;
  specifier: string;
  kind: Edge['kind'];
  line: number;
  column: number;
  /** The bundled module a bundler-require names, resolved already. */
  bundled: string | null;
  /** `bundled` may be a module of another file (Parcel's runtime is shared between bundles). */
  crossFile?: boolean;
}

type Facts = Pick<JavascriptApplication, 'strings' | 'urls' | 'ipc' | 'dynamic_code' | 'effects' | 'feature_flags'>;

/**
 * The one module an unmarked script's source map names: listed as a bundled module once the chunks it
 * is linked to show the script is a chunk (chunks.ts), with the sites inside its span moved to it.
 */
export interface SingleModule {
  module: BundledModule;
  /** Line (1-based) and column of its first character, and of the character past its last. */
  from: [number, number];
  to: [number, number];
}

/** One script's contribution; see {@link fileRecord}. */
export interface FileRecord {
  module: FileModule;
  bundled: BundledModule[];
  sources: SourceModule[];
  pending: PendingEdge[];
  /** The `__exportStar` exports of its modules, expanded once imports are resolved (starExports.ts). */
  stars: StarExport[];
  unknowns: JavascriptApplication['unknowns'];
  facts: Facts;
  usesElectron: boolean;
  unresolvedMap: boolean;
  /** See {@link SingleModule}; null when the script is not such a candidate. */
  single: SingleModule | null;
  /** See {@link ChunkLinks}; null when the script has no module that exports or imports. */
  links: ChunkLinks | null;
  /** What Electron role assignment reads of a parsed script; null when it was not parsed. */
  role: { path: string; preloads: string[]; loadedPages: string[] } | null;
  /**
   * A script written inside the HTML page at `module.path`: its facts and imports are the page's
   * (node id and positions), and it is no file module of its own.
   */
  inline?: boolean;
}

/** What a parsed script gives {@link fileRecord}. */
export interface ParsedScript {
  sourceType: 'module' | 'script';
  facts: FileFacts;
  bundle: RecoveredBundle;
  text: string;
  /** What the script exports and imports by module, when it is a chunk (chunkLinks.ts). */
  links?: ChunkLinks | null;
}

/** A source map resolution for a script without one. */
export const NO_MAP: SourceMapResolution = {
  status: 'none',
  reference: null,
  mapPath: null,
  reason: null,
  sources: [],
  sourceCount: 0,
  decoded: null,
};

/** The node id of a module recovered from `file`'s bundle. */
export function bundledNodeId(file: string, moduleId: string): string {
  return `bundled:${file}#${moduleId}`;
}

/** The node id of a source named by `file`'s source map. */
export function sourceNodeId(file: string, source: string): string {
  return `source:${file}#${source}`;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function mapParts(path: string, node_id: string, map: SourceMapResolution) {
  const unknowns: FileRecord['unknowns'] = [];
  if (map.status === 'unresolved') {
    unknowns.push({
      scope: node_id,
      kind: 'source-map-unresolved',
      message: `Source map ${map.reference}: ${map.reason}.`,
    });
  }
  if (map.sourceCount > map.sources.length) {
    unknowns.push({
      scope: node_id,
      kind: 'source-map-sources-cut',
      message: `The map names ${map.sourceCount} sources; ${map.sources.length} are listed.`,
    });
  }
  const named = new Set<string>();
  const sources: SourceModule[] = [];
  for (const source of map.sources) {
    if (named.has(source.source)) continue;
    named.add(source.source);
    sources.push({
      node_id: sourceNodeId(path, source.source),
      source: source.source,
      map: node_id,
      has_content: source.contentSha256 !== null,
      content_sha256: source.contentSha256,
    });
  }
  return { unknowns, sources };
}

/** The record of the script at `path`: parsed (with facts and bundle) or not (`null`). */
export function fileRecord(path: string, parsed: ParsedScript | null, map: SourceMapResolution = NO_MAP): FileRecord {
  const node_id = fileNodeId(path);
  const { unknowns, sources } = mapParts(path, node_id, map);
  const module: FileModule = {
    node_id,
    path,
    source_type: parsed?.sourceType ?? null,
    bundler: parsed?.bundle.bundler ?? null,
    roles: [],
    exports: [],
    builtins: parsed?.facts.builtins ?? [],
    source_map: {
      status: map.status,
      reference: map.reference,
      node_id: map.mapPath === null || map.status === 'unresolved' ? null : fileNodeId(map.mapPath),
      reason: map.reason,
      source_count: map.sourceCount,
    },
  };
  const record: FileRecord = {
    module,
    bundled: [],
    sources,
    pending: [],
    stars: [],
    unknowns,
    facts: { strings: [], urls: [], ipc: [], dynamic_code: [], effects: [], feature_flags: [] },
    usesElectron: parsed?.facts.usesElectron ?? false,
    unresolvedMap: map.status === 'unresolved',
    single: null,
    links: null,
    role: null,
  };
  if (parsed !== null) addParsed(record, path, parsed);
  return record;
}

function addParsed(record: FileRecord, path: string, parsed: ParsedScript): void {
  const { facts, bundle } = parsed;
  const { module } = record;
  const node_id = module.node_id;
  record.role = { path, preloads: facts.preloads, loadedPages: facts.loadedPages };
  record.links = parsed.links ?? null;
  if (facts.stringTotal > facts.strings.length) {
    record.unknowns.push({
      scope: node_id,
      kind: 'strings-cut',
      message: `${facts.stringTotal} string literals; the first ${facts.strings.length} are listed.`,
    });
  }
  if (facts.untracked.length > 0) {
    const lines = facts.untracked.slice(0, 5).map((p) => p.line);
    record.unknowns.push({
      scope: node_id,
      kind: 'ipc-binding-not-followed',
      message: `electron or its IPC objects are passed on, stored or reassigned (line ${lines.join(', ')}${facts.untracked.length > 5 ? ', …' : ''}): IPC channels reached through them are not listed.`,
    });
  }
  const out = record.facts;
  // A bundled module whose exports or module parameter is reassigned or passed on: its exports may
  // differ from those listed.
  const unfollowed = new Map<string, { why: Set<string>; lines: number[] }>();
  const holderOf = holderIndex(bundle.modules);
  for (const { why, at } of facts.exportsUnfollowed) {
    const m = holderOf(at.offset);
    const scope = m === null ? node_id : bundledNodeId(path, m.moduleId);
    const entry = unfollowed.get(scope) ?? { why: new Set<string>(), lines: [] };
    entry.why.add(why === 'reassigned' ? 'reassigned' : 'passed on or written by a computed name');
    entry.lines.push(at.line);
    unfollowed.set(scope, entry);
  }
  for (const [scope, { why, lines }] of unfollowed) {
    record.unknowns.push({
      scope,
      kind: 'exports-not-followed',
      message: `The module's exports or module object is ${[...why].join(' and ')} (line ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''}): its exports may differ from those listed.`,
    });
  }
  for (const s of facts.strings) {
    out.strings.push({ node_id, line: s.at.line, column: s.at.column, value: s.value, truncated: s.truncated });
  }
  for (const u of facts.urls)
    out.urls.push({ node_id, line: u.at.line, column: u.at.column, url: u.url, host: u.host });
  for (const i of facts.ipc)
    out.ipc.push({ node_id, line: i.at.line, column: i.at.column, api: i.api, channel: i.channel });
  for (const d of facts.dynamicCode)
    out.dynamic_code.push({ node_id, line: d.at.line, column: d.at.column, kind: d.kind });
  // The innermost bundled module of each site (none: every site is the file's).
  const holder = holderIndex(bundle.modules);
  const inner = (offset: number) => {
    const m = holder(offset);
    return m === null ? node_id : bundledNodeId(path, m.moduleId);
  };
  // An export inside a bundled module's own function (a factory or wrapper) is that module's; the
  // rest, scope-hoisted code included, are the file's.
  const exportsOf = new Map<string, FileModule['exports']>();
  facts.exports.forEach(({ star, ...shape }, i) => {
    const m = holder(facts.exportOffsets[i] ?? 0);
    const own = m === null || m.node === null ? module.exports : exportsOf.get(m.moduleId);
    const list = own ?? [];
    if (own === undefined) exportsOf.set(m!.moduleId, list);
    if (star !== undefined) {
      const { line, column } = star.at;
      record.stars.push({
        module: list === module.exports ? node_id : bundledNodeId(path, m!.moduleId),
        index: list.length,
        from: inner(star.at.offset),
        specifier: star.specifier,
        kind: shape.system === 'esm' ? 'export-from' : 'require',
        line,
        column,
      });
    }
    list.push(shape);
  });
  for (const e of facts.effects) {
    out.effects.push({
      node_id: inner(e.at.offset),
      line: e.at.line,
      column: e.at.column,
      category: e.category,
      api: e.api,
    });
  }
  for (const f of facts.flags) {
    out.feature_flags.push({
      node_id: inner(f.at.offset),
      line: f.at.line,
      column: f.at.column,
      key: f.key,
      provider: f.provider,
      api: f.api,
    });
  }
  const builtinsOf = new Map<string, Set<string>>();
  // A require the bundler resolved is its bundler-require edge, not an unresolved specifier too.
  const resolved = new Set(bundle.edges.map((e) => e.offset));
  for (const item of facts.imports) {
    if (item.kind === 'require' && resolved.has(item.at.offset)) continue;
    const m = holder(item.at.offset);
    const from = m === null ? node_id : bundledNodeId(path, m.moduleId);
    const { line, column } = item.at;
    record.pending.push({ from, file: path, specifier: item.specifier, kind: item.kind, line, column, bundled: null });
    const builtin = builtinOf(item.specifier);
    if (m !== null && builtin !== null) {
      builtinsOf.set(m.moduleId, (builtinsOf.get(m.moduleId) ?? new Set<string>()).add(builtin));
    }
  }
  for (const edge of bundle.edges) {
    const { line, column } = edge;
    const from = inner(edge.offset);
    record.pending.push({
      from,
      file: path,
      specifier: edge.specifier,
      kind: 'bundler-require',
      line,
      column,
      bundled: edge.toModuleId,
      crossFile: edge.crossFile === true,
    });
  }
  for (const preload of bundle.preloads ?? []) {
    const { line, column } = preload;
    const from = inner(preload.offset);
    record.pending.push({ from, file: path, specifier: preload.path, kind: 'preload', line, column, bundled: null });
  }
  const seen = new Set<string>();
  const listed = (m: RecoveredModule, builtins: Iterable<string>): BundledModule => {
    const text = parsed.text.slice(m.start, m.end);
    return {
      node_id: bundledNodeId(path, m.moduleId),
      file: node_id,
      bundler: m.bundler,
      module_id: m.moduleId,
      start_line: m.startLine,
      end_line: m.endLine,
      exports: [...(exportsOf.get(m.moduleId) ?? []), ...(m.exports ?? [])],
      builtins: [...builtins].sort(),
      content_sha256: sha256(text),
      structure_sha256: m.structure ?? sha256(text.replace(/\d+/g, '0')),
    };
  };
  for (const m of bundle.modules) {
    const id = bundledNodeId(path, m.moduleId);
    if (seen.has(id)) continue;
    seen.add(id);
    record.bundled.push(listed(m, builtinsOf.get(m.moduleId) ?? []));
  }
  const single = bundle.single;
  if (single !== undefined) {
    const column = (offset: number) => offset - (parsed.text.lastIndexOf('\n', offset - 1) + 1);
    const inside = (offset: number) => single.start <= offset && offset < single.end;
    const builtins = facts.imports
      .filter((item) => inside(item.at.offset))
      .map((item) => builtinOf(item.specifier))
      .filter((b): b is string => b !== null);
    record.single = {
      module: listed(single, new Set(builtins)),
      from: [single.startLine, column(single.start)],
      to: [single.endLine, column(single.end)],
    };
  }
}
