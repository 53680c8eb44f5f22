// Accumulates the per-file records of one analysis under global budgets and assembles the complete
// result: sorted, with stable node ids, coverage per phase and explicit unknowns.
import type { Coverage, Limitation } from '@rea/evidence';
import type { IntegrityContradiction, IntegrityPolicy } from '@rea/artifact';
import type { Asset, BundledModule, Edge, FileModule, JavascriptApplication, SourceModule } from '../schemas.js';
import { moduleImports } from './chunkLinks.js';
import type { ChunkLinks } from './chunkLinks.js';
import { nameChunks } from './chunks.js';
import type { RoleFact } from './electron.js';
import { bundledNodeId } from './fileRecord.js';
import type { FileRecord, PendingEdge, SingleModule } from './fileRecord.js';
import type { Resolution } from './graph.js';
import { expandStars } from './starExports.js';
import type { StarExport } from './starExports.js';

import { MAX_FACTS_PER_KIND } from '../limits.js';

export { MAX_FACTS_PER_KIND };

type Phase = JavascriptApplication['phases'][number];

/** What the result says of the input itself (from the read phase). */
export interface InputFacts {
  format: JavascriptApplication['input_format'];
  subject: { format: string; sha256: string; size: number };
  contradictions: IntegrityContradiction[];
  inventoryLimitations: Limitation[];
}

/** Collects one analysis; see {@link Collector.finish}. */
export class Collector {
  private readonly modules: FileModule[] = [];
  private readonly bundled: BundledModule[] = [];
  private readonly sources: SourceModule[] = [];
  private readonly pending: PendingEdge[] = [];
  private readonly stars: StarExport[] = [];
  /** The one-module candidates of unmarked scripts, by file node id (see chunks.ts). */
  private readonly singles = new Map<string, SingleModule>();
  /** What each chunk exports and imports by module, by file node id (see chunkLinks.ts). */
  private readonly links = new Map<string, ChunkLinks>();
  /** What Electron role assignment reads of each parsed script. */
  readonly roleFiles: NonNullable<FileRecord['role']>[] = [];
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
    const kept = items.length <= room ? items : items.slice(0, Math.max(0, room));
    for (const item of kept) (this.facts[kind] as unknown[]).push(item);
    this.dropped[kind] += Math.max(0, items.length - Math.max(0, room));
  }

  /** Records one script (see {@link FileRecord}): its modules, facts, imports and unknowns. */
  file(record: FileRecord): void {
    if (record.inline !== true) this.modules.push(record.module);
    this.unknowns.push(...record.unknowns);
    if (record.unresolvedMap) this.unresolvedMaps += 1;
    if (record.usesElectron) this.usesElectron = true;
    if (record.role !== null) this.roleFiles.push(record.role);
    if (record.single) this.singles.set(record.module.node_id, record.single);
    if (record.links) this.links.set(record.module.node_id, record.links);
    for (const item of record.sources) this.sources.push(item);
    for (const item of record.bundled) this.bundled.push(item);
    for (const item of record.pending) this.pending.push(item);
    if (record.inline !== true) for (const item of record.stars) this.stars.push(item);
    this.keep('strings', record.facts.strings);
    this.keep('urls', record.facts.urls);
    this.keep('ipc', record.facts.ipc);
    this.keep('dynamic_code', record.facts.dynamic_code);
    this.keep('effects', record.facts.effects);
    this.keep('feature_flags', record.facts.feature_flags);
  }

  /** True once the coverage of `phase` is recorded. */
  hasPhase(phase: Phase['phase']): boolean {
    return this.phases.some((p) => p.phase === phase);
  }

  /** Scripts recorded so far. */
  get fileCount(): number {
    return this.modules.length;
  }

  /**
   * Resolves every recorded import with `resolve(file, specifier)`; a preload names its file relative
   * to the build's base (`resolve(file, path, true)`). A runtime require of a module its own file does
   * not register goes to the one module of another file registered under that id, or is unresolved.
   * Then each `__exportStar` export is expanded to the names of the module it requires (starExports.ts).
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
    nameChunks(this.modules, this.bundled, this.edges, this.singles, this.facts);
    if (this.links.size > 0) {
      const fileOf = new Map(this.bundled.map((m) => [m.node_id, m.file]));
      const refined = moduleImports(this.edges, this.links, fileOf, new Set(fileOf.keys()));
      this.edges.length = 0;
      for (const edge of refined) this.edges.push(edge);
    }
    for (const u of expandStars([...this.modules, ...this.bundled], this.stars, this.edges))
      this.unknown(u.scope, u.kind, u.message);
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
    input: InputFacts;
    policy: IntegrityPolicy;
    electron: boolean;
    roles: RoleFact[];
    assets: Asset[];
    manifests: JavascriptApplication['manifests'];
    html: JavascriptApplication['html_entries'];
  }): {
    subject: InputFacts['subject'];
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
    if (parts.assets.length === 0 && parts.manifests.length === 0 && parts.html.length === 0) {
      // Nothing here is what the analysis reads: say so, rather than answer an empty application.
      const what =
        parts.input.format === 'directory'
          ? 'The folder holds no'
          : parts.input.format === 'file'
            ? 'The file is not a'
            : 'The archive holds no';
      this.unknown(
        'application',
        'no-javascript',
        `${what} script, HTML page or package.json that the analysis reads: nothing was analyzed. Pass a folder, a ZIP-based package or an ASAR archive of the application (unpack a .tgz or other archive first).`,
      );
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
