// Accumulates the per-file observations of one analysis under global budgets and assembles the
// complete result: sorted, with stable node ids, coverage per phase and explicit unknowns.
import { createHash } from 'node:crypto';
import type { Coverage, Limitation } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import type { Asset, BundledModule, Edge, FileModule, JavascriptApplication, SourceModule } from '../schemas.js';
import { holderOf } from './bundles.js';
import type { RecoveredBundle } from './bundles.js';
import type { RoleFact } from './electron.js';
import { nameChunks } from './chunks.js';
import { builtinOf } from './facts.js';
import type { FileFacts } from './facts.js';
import type { Resolution } from './graph.js';
import { fileNodeId } from './inventory.js';
import type { ApplicationInput } from './read.js';
import type { SourceMapResolution } from './sourceMaps.js';

/** Facts of one kind (strings, URLs, …) kept across the whole application; the rest are counted. */
export const MAX_FACTS_PER_KIND = 50_000;

type Phase = JavascriptApplication['phases'][number];
type Pending = {
  from: string;
  file: string;
  specifier: string;
  kind: Edge['kind'];
  line: number;
  column: number;
  bundled: string | null;
  /** `bundled` may be a module of another file (Parcel's runtime is shared between bundles). */
  crossFile?: boolean;
};

const NO_MAP: SourceMapResolution = {
  status: 'none',
  reference: null,
  mapPath: null,
  reason: null,
  sources: [],
  sourceCount: 0,
  decoded: null,
};

/** The content and structure hashes of a bundled module's text (see BundledModuleSchema). */
function spanHashes(text: string, structure: string | null): { content_sha256: string; structure_sha256: string } {
  const hash = (value: string) => createHash('sha256').update(value).digest('hex');
  return { content_sha256: hash(text), structure_sha256: structure ?? hash(text.replace(/\d+/g, '0')) };
}

/** The node id of a module recovered from `file`'s bundle. */
export function bundledNodeId(file: string, moduleId: string): string {
  return `bundled:${file}#${moduleId}`;
}

/** The node id of a source named by `file`'s source map. */
export function sourceNodeId(file: string, source: string): string {
  return `source:${file}#${source}`;
}

/** Collects one analysis; see {@link Collector.finish}. */
export class Collector {
  private readonly modules: FileModule[] = [];
  private readonly bundled: BundledModule[] = [];
  private readonly sources: SourceModule[] = [];
  private readonly pending: Pending[] = [];
  private readonly edges: Edge[] = [];
  private readonly phases: Phase[] = [];
  private readonly unknowns: JavascriptApplication['unknowns'] = [];
  private readonly facts = {
    strings: [] as JavascriptApplication['strings'],
    urls: [] as JavascriptApplication['urls'],
    ipc: [] as JavascriptApplication['ipc'],
    dynamic_code: [] as JavascriptApplication['dynamic_code'],
    effects: [] as JavascriptApplication['effects'],
    feature_flags: [] as JavascriptApplication['feature_flags'],
  };
  private readonly dropped = { strings: 0, urls: 0, ipc: 0, dynamic_code: 0, effects: 0, feature_flags: 0 };
  /** Source maps that could not be read. */
  unresolvedMaps = 0;
  /** Relative imports that name no file of the input. */
  unresolvedEdges = 0;
  /** Some file imports `electron`. */
  usesElectron = false;

  /** Records the coverage of one phase: complete without reasons, partial with them. */
  phase(phase: Phase['phase'], reasons: string[]): void {
    this.phases.push({ phase, status: reasons.length === 0 ? 'complete' : 'partial', reasons });
  }

  /** Records an explicit unknown about one node or path. */
  unknown(scope: string, kind: string, message: string): void {
    this.unknowns.push({ scope, kind, message });
  }

  private keep<K extends keyof Collector['facts']>(kind: K, items: Collector['facts'][K]): void {
    const room = MAX_FACTS_PER_KIND - this.facts[kind].length;
    (this.facts[kind] as unknown[]).push(...items.slice(0, Math.max(0, room)));
    this.dropped[kind] += Math.max(0, items.length - Math.max(0, room));
  }

  /** Records the file module at `path`: parsed (with facts and bundle) or not (`null`). */
  fileModule(
    path: string,
    parsed: { sourceType: 'module' | 'script'; facts: FileFacts; bundle: RecoveredBundle; text: string } | null,
    map: SourceMapResolution = NO_MAP,
  ): void {
    const node_id = fileNodeId(path);
    if (map.status === 'unresolved') {
      this.unresolvedMaps += 1;
      this.unknown(node_id, 'source-map-unresolved', `Source map ${map.reference}: ${map.reason}.`);
    }
    if (map.sourceCount > map.sources.length) {
      this.unknown(
        node_id,
        'source-map-sources-cut',
        `The map names ${map.sourceCount} sources; ${map.sources.length} are listed.`,
      );
    }
    const named = new Set<string>();
    for (const source of map.sources) {
      if (named.has(source.source)) continue;
      named.add(source.source);
      this.sources.push({
        node_id: sourceNodeId(path, source.source),
        source: source.source,
        map: node_id,
        has_content: source.contentSha256 !== null,
        content_sha256: source.contentSha256,
      });
    }
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
    this.modules.push(module);
    if (parsed === null) return;
    const { facts, bundle } = parsed;
    if (facts.usesElectron) this.usesElectron = true;
    if (facts.stringTotal > facts.strings.length) {
      this.unknown(
        node_id,
        'strings-cut',
        `${facts.stringTotal} string literals; the first ${facts.strings.length} are listed.`,
      );
    }
    const where = (at: { line: number; column: number }) => ({ node_id, line: at.line, column: at.column });
    this.keep(
      'strings',
      facts.strings.map((s) => ({ ...where(s.at), value: s.value, truncated: s.truncated })),
    );
    this.keep(
      'urls',
      facts.urls.map((u) => ({ ...where(u.at), url: u.url, host: u.host })),
    );
    this.keep(
      'ipc',
      facts.ipc.map((i) => ({ ...where(i.at), api: i.api, channel: i.channel })),
    );
    this.keep(
      'dynamic_code',
      facts.dynamicCode.map((d) => ({ ...where(d.at), kind: d.kind })),
    );
    const holder = (offset: number) => holderOf(bundle.modules, offset);
    // An export inside a bundled module's own function (a factory or wrapper) is that module's; the
    // rest, scope-hoisted code included, are the file's.
    const exportsOf = new Map<string, FileModule['exports']>();
    facts.exports.forEach((shape, i) => {
      const inner = holder(facts.exportOffsets[i] ?? 0);
      if (inner === null || inner.node === null) module.exports.push(shape);
      else exportsOf.set(inner.moduleId, [...(exportsOf.get(inner.moduleId) ?? []), shape]);
    });
    this.keep(
      'effects',
      facts.effects.map((e) => {
        const inner = holder(e.at.offset);
        const id = inner === null ? node_id : bundledNodeId(path, inner.moduleId);
        return { node_id: id, line: e.at.line, column: e.at.column, category: e.category, api: e.api };
      }),
    );
    this.keep(
      'feature_flags',
      facts.flags.map((f) => {
        const inner = holder(f.at.offset);
        const id = inner === null ? node_id : bundledNodeId(path, inner.moduleId);
        return { node_id: id, line: f.at.line, column: f.at.column, key: f.key, provider: f.provider, api: f.api };
      }),
    );
    const builtinsOf = new Map<string, Set<string>>();
    // A require the bundler resolved is its bundler-require edge, not an unresolved specifier too.
    const resolved = new Set(bundle.edges.map((e) => e.offset));
    for (const item of facts.imports) {
      if (item.kind === 'require' && resolved.has(item.at.offset)) continue;
      const inner = holder(item.at.offset);
      const from = inner === null ? node_id : bundledNodeId(path, inner.moduleId);
      const { line, column } = item.at;
      this.pending.push({ from, file: path, specifier: item.specifier, kind: item.kind, line, column, bundled: null });
      const builtin = builtinOf(item.specifier);
      if (inner !== null && builtin !== null) {
        builtinsOf.set(inner.moduleId, (builtinsOf.get(inner.moduleId) ?? new Set<string>()).add(builtin));
      }
    }
    for (const edge of bundle.edges) {
      const inner = holder(edge.offset);
      const from = inner === null ? node_id : bundledNodeId(path, inner.moduleId);
      const { line, column } = edge;
      this.pending.push({
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
      const inner = holder(preload.offset);
      const from = inner === null ? node_id : bundledNodeId(path, inner.moduleId);
      const { line, column } = preload;
      this.pending.push({ from, file: path, specifier: preload.path, kind: 'preload', line, column, bundled: null });
    }
    const seen = new Set<string>();
    for (const m of bundle.modules) {
      const id = bundledNodeId(path, m.moduleId);
      if (seen.has(id)) continue;
      seen.add(id);
      this.bundled.push({
        node_id: id,
        file: node_id,
        bundler: m.bundler,
        module_id: m.moduleId,
        start_line: m.startLine,
        end_line: m.endLine,
        exports: [...(exportsOf.get(m.moduleId) ?? []), ...(m.exports ?? [])],
        builtins: [...(builtinsOf.get(m.moduleId) ?? [])].sort(),
        ...spanHashes(parsed.text.slice(m.start, m.end), m.structure),
      });
    }
  }

  /**
   * Resolves every recorded import with `resolve(file, specifier)`; a preload names its file relative
   * to the build's base (`resolve(file, path, true)`). A runtime require of a module its own file does
   * not register goes to the one module of another file registered under that id, or is unresolved.
   */
  resolveEdges(resolve: (from: string, specifier: string, base?: boolean) => Resolution): void {
    const ids = new Set(this.bundled.map((m) => m.node_id));
    const registered = new Map<string, string[]>();
    for (const m of this.bundled) registered.set(m.module_id, [...(registered.get(m.module_id) ?? []), m.node_id]);
    for (const p of this.pending) {
      const base = { from: p.from, specifier: p.specifier, kind: p.kind, line: p.line, column: p.column };
      if (p.bundled !== null) {
        const local = bundledNodeId(p.file, p.bundled);
        const elsewhere = registered.get(p.bundled) ?? [];
        const to = !p.crossFile || ids.has(local) ? local : elsewhere.length === 1 ? elsewhere[0]! : null;
        this.edges.push({ ...base, to, target_kind: to === null ? 'unresolved' : 'module' });
        continue;
      }
      const resolution = resolve(p.file, p.specifier, p.kind === 'preload');
      if (resolution.target_kind === 'unresolved' && p.specifier.startsWith('.')) this.unresolvedEdges += 1;
      this.edges.push({ ...base, ...resolution });
    }
    nameChunks(this.modules, this.bundled, this.edges);
  }

  /** Marks file modules with their Electron roles. */
  applyRoles(roles: readonly RoleFact[]): void {
    const byId = new Map(this.modules.map((m) => [m.node_id, m]));
    for (const role of roles) {
      const module = byId.get(role.node_id);
      if (module && !module.roles.includes(role.role)) module.roles.push(role.role);
    }
    for (const module of this.modules) module.roles.sort();
  }

  /** The complete result, its coverage (partial when any phase is) and limitations (the unknowns). */
  finish(parts: {
    input: ApplicationInput;
    policy: IntegrityPolicy;
    electron: boolean;
    roles: RoleFact[];
    assets: Asset[];
    manifests: JavascriptApplication['manifests'];
    html: JavascriptApplication['html_entries'];
  }): {
    subject: ApplicationInput['subject'];
    result: JavascriptApplication;
    coverage: Coverage;
    limitations: Limitation[];
  } {
    for (const [kind, count] of Object.entries(this.dropped)) {
      if (count > 0) {
        this.unknown(
          'application',
          `${kind.replace('_', '-')}-cut`,
          `${count} more ${kind.replace('_', ' ')} facts than the ${MAX_FACTS_PER_KIND} listed.`,
        );
        this.phases.find((p) => p.phase === 'parse')!.reasons.push(`${kind} facts cut at ${MAX_FACTS_PER_KIND}`);
      }
    }
    for (const p of this.phases) p.status = p.reasons.length === 0 ? 'complete' : 'partial';
    const hosts = [...new Set(this.facts.urls.map((u) => u.host).filter((h): h is string => h !== null))].sort();
    const byId = <T extends { node_id: string }>(items: T[]) =>
      items.sort((a, b) => (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0));
    const result: JavascriptApplication = {
      view: 'complete',
      input_format: parts.input.format,
      integrity_policy: parts.policy,
      electron: parts.electron,
      roles: parts.roles,
      assets: parts.assets,
      manifests: parts.manifests,
      html_entries: parts.html,
      modules: byId(this.modules),
      bundled_modules: byId(this.bundled),
      source_modules: byId(this.sources),
      edges: this.edges,
      strings: this.facts.strings,
      urls: this.facts.urls,
      hosts,
      ipc: this.facts.ipc,
      dynamic_code: this.facts.dynamic_code,
      effects: this.facts.effects,
      feature_flags: this.facts.feature_flags,
      phases: this.phases,
      unknowns: this.unknowns,
      integrity_contradictions: parts.input.contradictions,
    };
    const reasons = this.phases.flatMap((p) => p.reasons.map((r) => `${p.phase}: ${r}`));
    const coverage: Coverage = { status: reasons.length === 0 ? 'complete' : 'partial', reasons };
    const limitations: Limitation[] = [
      ...parts.input.inventoryLimitations,
      ...this.unknowns.map((u) => ({ kind: u.kind, message: u.message, scope: u.scope })),
    ];
    return { subject: parts.input.subject, result, coverage, limitations };
  }
}
