// Two versions of one application, compared from their analyses. Modules are matched by path (a
// bundled module by its file and id, a source by its name), then by content hash (moved or renamed),
// then, for bundled modules, by structure hash (ids renumbered between builds). A module or asset
// whose bytes contradict their declared integrity, or whose content is unknown on a side, is listed
// as unknown: never as unchanged.
import type { ExportShape, JavascriptApplication } from '../schemas.js';
import { diffExports } from './exportShapes.js';
import type { ExportDiff } from './exportShapes.js';
import { setDiff } from './sets.js';
import type { SetDiff } from './sets.js';

/** Entries listed per list at most; beyond, `truncated` is true. */
export const MAX_COMPARE_ITEMS = 1_000;

type Kind = 'file' | 'bundled' | 'source';
interface Unit {
  node_id: string;
  kind: Kind;
  key: string;
  hash: string | null;
  structure: string | null;
  exports: ExportShape[];
  builtins: string[];
}

/** A module present in both versions, with how it was matched and what differs. */
export interface ModuleChange {
  before: string;
  after: string;
  matched_by: 'path' | 'content' | 'structure';
  changes: ('path' | 'content' | 'exports' | 'builtins')[];
}

/** The comparison of two application versions. */
export interface VersionComparison {
  modules: {
    added: string[];
    removed: string[];
    changed: ModuleChange[];
    unknown: { node_id: string; reason: 'integrity-contradicted' | 'content-unknown' }[];
    unchanged: number;
  };
  exports: ({ before: string; after: string } & ExportDiff)[];
  assets: SetDiff & { changed: string[]; unknown: string[] };
  dependencies: { manifest: string; name: string; before: string | null; after: string | null }[];
  strings: SetDiff;
  urls: SetDiff;
  hosts: SetDiff;
  ipc_channels: SetDiff;
  effects: SetDiff;
  feature_flags: FlagChanges;
  truncated: boolean;
}

/** How an application uses one flag key: the providers checking it and at how many sites. */
export interface FlagUse {
  providers: string[];
  sites: number;
}

/** Flag keys checked only after (added), only before (removed), or by other providers or sites (changed). */
export interface FlagChanges extends SetDiff {
  changed: { key: string; before: FlagUse; after: FlagUse }[];
}

function flagUses(app: JavascriptApplication): Map<string, FlagUse> {
  const uses = new Map<string, FlagUse>();
  for (const flag of app.feature_flags) {
    const use = uses.get(flag.key) ?? { providers: [], sites: 0 };
    use.sites += 1;
    if (!use.providers.includes(flag.provider)) use.providers = [...use.providers, flag.provider].sort();
    uses.set(flag.key, use);
  }
  return uses;
}

/** The flag keys added, removed and changed from `before` to `after`. */
function compareFlags(before: JavascriptApplication, after: JavascriptApplication): FlagChanges {
  const old = flagUses(before);
  const now = flagUses(after);
  const changed: FlagChanges['changed'] = [];
  for (const [key, use] of [...now].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const previous = old.get(key);
    if (previous !== undefined && (previous.sites !== use.sites || !same(previous.providers, use.providers)))
      changed.push({ key, before: previous, after: use });
  }
  return { ...setDiff(old.keys(), now.keys()), changed };
}

function contradicted(app: JavascriptApplication): Set<string> {
  return new Set([
    ...app.integrity_contradictions.map((c) => c.path),
    ...app.unknowns.filter((u) => u.kind === 'integrity-contradicted').map((u) => u.scope.replace(/^file:/, '')),
  ]);
}

function units(app: JavascriptApplication): Unit[] {
  const sha = new Map(app.assets.map((a) => [a.node_id, a.sha256]));
  const fileOf = new Map(app.modules.map((m) => [m.node_id, m.path]));
  return [
    ...app.modules.map((m) => ({
      node_id: m.node_id,
      kind: 'file' as const,
      key: m.path,
      hash: sha.get(m.node_id) ?? null,
      structure: null,
      exports: m.exports,
      builtins: m.builtins,
    })),
    ...app.bundled_modules.map((m) => ({
      node_id: m.node_id,
      kind: 'bundled' as const,
      key: `${fileOf.get(m.file) ?? m.file}#${m.module_id}`,
      hash: m.content_sha256,
      structure: m.structure_sha256,
      exports: m.exports,
      builtins: m.builtins,
    })),
    ...app.source_modules.map((m) => ({
      node_id: m.node_id,
      kind: 'source' as const,
      key: m.source,
      hash: m.content_sha256,
      structure: null,
      exports: [],
      builtins: [],
    })),
  ];
}

type By = ModuleChange['matched_by'];
const FIELDS: Record<By, (u: Unit) => string | null> = {
  path: (u) => u.key,
  content: (u) => u.hash,
  structure: (u) => u.structure,
};

/**
 * Pairs `before` and `after` units of one kind, strategy by strategy, each pairing only values that
 * are unique on both sides. Files and sources: path, then content (moved). Bundled modules: content,
 * structure, then id — a numeric id says nothing once a build renumbers its modules.
 */
function match(
  before: Unit[],
  after: Unit[],
  order: By[],
): { pairs: [Unit, Unit, By][]; added: Unit[]; removed: Unit[] } {
  const pairs: [Unit, Unit, By][] = [];
  let left = before;
  let right = after;
  for (const by of order) {
    const field = FIELDS[by];
    const index = (units: Unit[]) => {
      const map = new Map<string, Unit[]>();
      for (const u of units) if (field(u) !== null) map.set(field(u)!, [...(map.get(field(u)!) ?? []), u]);
      return map;
    };
    const old = index(left);
    const now = index(right);
    const paired = new Set<Unit>();
    for (const [value, units] of now) {
      const candidates = old.get(value);
      if (units.length !== 1 || candidates?.length !== 1) continue;
      pairs.push([candidates[0]!, units[0]!, by]);
      paired.add(candidates[0]!).add(units[0]!);
    }
    left = left.filter((u) => !paired.has(u));
    right = right.filter((u) => !paired.has(u));
  }
  return { pairs, added: right, removed: left };
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Compares two analyses of versions of one application; see the module comment for the matching. */
export function compareVersions(before: JavascriptApplication, after: JavascriptApplication): VersionComparison {
  const untrusted = new Set([...contradicted(before), ...contradicted(after)]);
  const modules: VersionComparison['modules'] = { added: [], removed: [], changed: [], unknown: [], unchanged: 0 };
  const exports: VersionComparison['exports'] = [];
  const old = units(before);
  const now = units(after);
  for (const kind of ['file', 'bundled', 'source'] as const) {
    const { pairs, added, removed } = match(
      old.filter((u) => u.kind === kind),
      now.filter((u) => u.kind === kind),
      kind === 'bundled' ? ['content', 'structure', 'path'] : ['path', 'content'],
    );
    // A module whose file is contradicted on one side was not analyzed there: unknown, not added or removed.
    const doubtful = (u: Unit) => {
      const file = u.kind === 'file' ? u.key : u.kind === 'bundled' ? u.key.slice(0, u.key.lastIndexOf('#')) : null;
      return file !== null && untrusted.has(file);
    };
    for (const u of [...added, ...removed]) {
      if (doubtful(u)) modules.unknown.push({ node_id: u.node_id, reason: 'integrity-contradicted' });
    }
    modules.added.push(...added.filter((u) => !doubtful(u)).map((u) => u.node_id));
    modules.removed.push(...removed.filter((u) => !doubtful(u)).map((u) => u.node_id));
    for (const [a, b, matched_by] of pairs) {
      if (doubtful(a) || doubtful(b)) {
        modules.unknown.push({ node_id: b.node_id, reason: 'integrity-contradicted' });
        continue;
      }
      if (a.hash === null || b.hash === null) {
        modules.unknown.push({ node_id: b.node_id, reason: 'content-unknown' });
        continue;
      }
      const diff = diffExports(a.exports, b.exports);
      const changes: ModuleChange['changes'] = [];
      if (a.key !== b.key) changes.push('path');
      if (a.hash !== b.hash) changes.push('content');
      if (diff.added.length + diff.removed.length + diff.changed.length > 0) {
        changes.push('exports');
        exports.push({ before: a.node_id, after: b.node_id, ...diff });
      }
      if (!same(a.builtins, b.builtins)) changes.push('builtins');
      if (changes.length === 0) modules.unchanged += 1;
      else modules.changed.push({ before: a.node_id, after: b.node_id, matched_by, changes });
    }
  }
  const assetSha = (app: JavascriptApplication) => new Map(app.assets.map((a) => [a.path, a.sha256]));
  const oldAssets = assetSha(before);
  const newAssets = assetSha(after);
  const assets = { ...setDiff(oldAssets.keys(), newAssets.keys()), changed: [] as string[], unknown: [] as string[] };
  for (const [path, sha] of newAssets) {
    if (!oldAssets.has(path)) continue;
    const previous = oldAssets.get(path);
    if (untrusted.has(path) || sha === null || previous === null) assets.unknown.push(path);
    else if (previous !== sha) assets.changed.push(path);
  }
  assets.changed.sort();
  assets.unknown.sort();
  const dependencies: VersionComparison['dependencies'] = [];
  const manifests = new Set([...before.manifests, ...after.manifests].map((m) => m.path));
  for (const path of [...manifests].sort()) {
    const a = before.manifests.find((m) => m.path === path)?.dependencies ?? {};
    const b = after.manifests.find((m) => m.path === path)?.dependencies ?? {};
    for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (a[name] !== b[name])
        dependencies.push({ manifest: `file:${path}`, name, before: a[name] ?? null, after: b[name] ?? null });
    }
  }
  const channels = (app: JavascriptApplication) => app.ipc.flatMap((i) => (i.channel === null ? [] : [i.channel]));
  const effects = (app: JavascriptApplication) => app.effects.map((e) => `${e.category} ${e.api}`);
  const comparison: VersionComparison = {
    modules,
    exports,
    assets,
    dependencies,
    strings: setDiff(
      before.strings.map((s) => s.value),
      after.strings.map((s) => s.value),
    ),
    urls: setDiff(
      before.urls.map((u) => u.url),
      after.urls.map((u) => u.url),
    ),
    hosts: setDiff(before.hosts, after.hosts),
    ipc_channels: setDiff(channels(before), channels(after)),
    effects: setDiff(effects(before), effects(after)),
    feature_flags: compareFlags(before, after),
    truncated: false,
  };
  return cut(comparison);
}

/** Cuts every list at {@link MAX_COMPARE_ITEMS}, setting `truncated` when any was longer. */
function cut(c: VersionComparison): VersionComparison {
  let truncated = false;
  const take = <T>(items: T[]): T[] => {
    if (items.length > MAX_COMPARE_ITEMS) truncated = true;
    return items.slice(0, MAX_COMPARE_ITEMS);
  };
  const sets = (d: SetDiff): SetDiff => ({ added: take(d.added), removed: take(d.removed) });
  const result: VersionComparison = {
    modules: {
      added: take(c.modules.added),
      removed: take(c.modules.removed),
      changed: take(c.modules.changed),
      unknown: take(c.modules.unknown),
      unchanged: c.modules.unchanged,
    },
    exports: take(c.exports),
    assets: { ...sets(c.assets), changed: take(c.assets.changed), unknown: take(c.assets.unknown) },
    dependencies: take(c.dependencies),
    strings: sets(c.strings),
    urls: sets(c.urls),
    hosts: sets(c.hosts),
    ipc_channels: sets(c.ipc_channels),
    effects: sets(c.effects),
    feature_flags: { ...sets(c.feature_flags), changed: take(c.feature_flags.changed) },
    truncated: false,
  };
  result.truncated = truncated;
  return result;
}
