// tsc's `export * from './m'` in CommonJS output: `__exportStar(require("./m"), exports)` copies every
// name of module m onto the module's exports, except `default` and the names the module already has
// (tsc's `exports.a = exports.b = void 0` preamble defines its own names first). An ES module's own
// `export * from './m'` exports the names of m the same way, except a name two such declarations give
// from different bindings: that one is ambiguous and left out of the module's namespace. Which names
// those are is known only once the require or import is resolved over the whole input, so the `*` each
// file lists is replaced here by the names of the module it resolves to, where those are known.
import type { Edge, ExportShape } from '../schemas.js';

/** One `__exportStar(require(specifier), exports)` or `export * from specifier`: the `*` at `index` of `module`'s exports. */
export interface StarExport {
  /** The module (file or bundled) whose exports hold the `*`. */
  module: string;
  index: number;
  /** The module the require or export declaration is an edge from, and its specifier, kind and position. */
  from: string;
  /** Null when the require's argument is computed. */
  specifier: string | null;
  kind: 'require' | 'export-from';
  line: number;
  column: number;
}

/** What {@link expandStars} could not expand, as unknowns of the module holding the `*`. */
type Unknown = { scope: string; kind: 'reexported-names-unknown'; message: string };

/**
 * Replaces each star of `stars` in `modules`' exports (in place) by the names of the module it names,
 * in that module's order, with their kinds and arities. A star stays `*`, with an unknown, when its
 * specifier names no module of the application, when that module's own names are not all known (a `*`
 * of its own that stays, or `module.exports` set to a value other than an object literal), when the
 * two name each other (a cycle), or, for `export * from`, when the module is not an ES module (Node.js
 * finds a CommonJS module's names by scanning its text) or a name it gives may or may not be the
 * binding another `export * from` of the module gives.
 */
export function expandStars(
  modules: readonly { node_id: string; path?: string; source_type?: string | null; exports: ExportShape[] }[],
  stars: readonly StarExport[],
  edges: readonly Edge[],
): Unknown[] {
  if (stars.length === 0) return [];
  const byId = new Map(modules.map((m) => [m.node_id, m]));
  const key = (kind: string, from: string, specifier: string, line: number, column: number) =>
    `${kind}\u0000${from}\u0000${specifier}\u0000${line}\u0000${column}`;
  const named = new Map<string, Edge>();
  for (const edge of edges)
    if (edge.kind === 'require' || edge.kind === 'export-from')
      named.set(key(edge.kind, edge.from, edge.specifier, edge.line, edge.column), edge);
  const starsOf = new Map<string, StarExport[]>();
  for (const star of stars) starsOf.set(star.module, [...(starsOf.get(star.module) ?? []), star]);
  const unknowns: Unknown[] = [];
  // Per module: expanding (a cycle when met again), or done with whether all its names are known.
  const state = new Map<string, 'expanding' | 'known' | 'open'>();
  // Per expanded module: the binding each name is (null: not known, a named re-export), and the names
  // its `export * from` declarations give ambiguously.
  const bindings = new Map<string, Map<string, string | null>>();
  const ambiguousOf = new Map<string, Set<string>>();
  const nameOf = (id: string) => byId.get(id)?.path ?? id;
  const ownBinding = (id: string, shape: ExportShape) =>
    shape.value_kind === 'reexport' ? null : `${id}\u0000${shape.name}`;
  const bindingsOf = (id: string) =>
    bindings.get(id) ?? new Map(byId.get(id)!.exports.map((e) => [e.name, ownBinding(id, e)]));
  const isEsModule = (id: string) => {
    const m = byId.get(id)!;
    return m.source_type === 'module' && m.exports.every((e) => e.system === 'esm');
  };

  const expand = (id: string): 'known' | 'open' => {
    const done = state.get(id);
    if (done === 'known' || done === 'open') return done;
    state.set(id, 'expanding');
    const module = byId.get(id)!;
    const at = new Map((starsOf.get(id) ?? []).map((s) => [s.index, s]));
    const own = new Set(module.exports.filter((_, i) => !at.has(i)).map((e) => e.name));
    // A name left out as ambiguous is null in place.
    const listed: (ExportShape | null)[] = [];
    const binding = new Map<string, string | null>();
    const ambiguous = new Set<string>();
    const starred = new Map<string, number>();
    let open = false;
    module.exports.forEach((shape, i) => {
      const star = at.get(i);
      if (star === undefined) {
        listed.push(shape);
        binding.set(shape.name, ownBinding(id, shape));
        if (shape.name === '*' || shape.name === 'module.exports') open = true;
        return;
      }
      const es = star.kind === 'export-from';
      const edge =
        star.specifier === null
          ? undefined
          : named.get(key(star.kind, star.from, star.specifier, star.line, star.column));
      const target = edge?.target_kind === 'module' && edge.to !== null && byId.has(edge.to) ? edge.to : null;
      let why =
        star.specifier === null
          ? 'which module is computed when the code runs'
          : target === null
            ? `${star.specifier} is not a script of the application`
            : es && !isEsModule(target)
              ? `${nameOf(target)} is not an ES module (Node.js finds a CommonJS module's names by scanning its text)`
              : state.get(target) === 'expanding'
                ? es
                  ? `${nameOf(target)} exports from this module back (a cycle)`
                  : `${nameOf(target)} requires this module back, so the names it has then depend on which one is loaded first`
                : expand(target) === 'open'
                  ? `not all names of ${nameOf(target)} are known`
                  : null;
      const copied = why === null ? byId.get(target!)!.exports.filter((e) => e.name !== 'default') : [];
      const theirs = why === null ? bindingsOf(target!) : new Map<string, string | null>();
      if (why === null && es) {
        // A name an earlier `export * from` gave too is the same export only if it is the same binding.
        const unsure = copied.filter((e) => {
          if (own.has(e.name) || !starred.has(e.name)) return false;
          const before = binding.get(e.name) ?? null;
          const now = theirs.get(e.name) ?? null;
          return before === null || now === null;
        });
        if (unsure.length > 0)
          why = `${unsure[0]!.name} is also exported by an earlier export * from, and whether it is the same binding is not known`;
      }
      if (why !== null) {
        listed.push(shape);
        open = true;
        const spec = star.specifier === null ? '…' : JSON.stringify(star.specifier);
        unknowns.push({
          scope: id,
          kind: 'reexported-names-unknown',
          message: `${es ? `export * from ${spec} exports` : `__exportStar(require(${spec})) copies`} every name of another module, but ${why}: listed as "*".`,
        });
        return;
      }
      const leaveOut = (name: string) => {
        ambiguous.add(name);
        const place = starred.get(name);
        if (place !== undefined) listed[place] = null;
      };
      if (es) for (const name of ambiguousOf.get(target!) ?? []) if (!own.has(name)) leaveOut(name);
      for (const e of copied) {
        if (own.has(e.name) || ambiguous.has(e.name)) continue;
        const now = theirs.get(e.name) ?? null;
        if (starred.has(e.name)) {
          if (es && now !== binding.get(e.name)) leaveOut(e.name);
          continue;
        }
        starred.set(e.name, listed.length);
        binding.set(e.name, now);
        listed.push({ ...e, system: es ? 'esm' : 'commonjs' });
      }
    });
    module.exports.splice(0, module.exports.length, ...listed.filter((e): e is ExportShape => e !== null));
    bindings.set(id, binding);
    ambiguousOf.set(id, ambiguous);
    const result = open ? 'open' : 'known';
    state.set(id, result);
    return result;
  };
  for (const id of starsOf.keys()) if (byId.has(id)) expand(id);
  return unknowns;
}
