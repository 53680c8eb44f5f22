// tsc's `export * from './m'` in CommonJS output: `__exportStar(require("./m"), exports)` copies every
// name of module m onto the module's exports, except `default` and the names the module already has
// (tsc's `exports.a = exports.b = void 0` preamble defines its own names first). Which names those are
// is known only once the require is resolved over the whole input, so the `*` each file lists is
// replaced here by the names of the module it resolves to, where those are known.
import type { Edge, ExportShape } from '../schemas.js';

/** One `__exportStar(require(specifier), exports)` export: the `*` at `index` of `module`'s exports. */
export interface StarExport {
  /** The module (file or bundled) whose exports hold the `*`. */
  module: string;
  index: number;
  /** The module the require is an edge from, and the require's specifier and position. */
  from: string;
  /** Null when the require's argument is computed. */
  specifier: string | null;
  line: number;
  column: number;
}

/** What {@link expandStars} could not expand, as unknowns of the module holding the `*`. */
type Unknown = { scope: string; kind: 'reexported-names-unknown'; message: string };

/**
 * Replaces each star of `stars` in `modules`' exports (in place) by the names of the module its require
 * resolves to, in that module's order, with their kinds and arities. A star stays `*`, with an unknown,
 * when the require names no module of the application, when that module's own names are not all known
 * (a `*` of its own that stays, or `module.exports` set to a value other than an object literal), or
 * when the two require each other (the names then depend on which one is loaded first).
 */
export function expandStars(
  modules: readonly { node_id: string; path?: string; exports: ExportShape[] }[],
  stars: readonly StarExport[],
  edges: readonly Edge[],
): Unknown[] {
  if (stars.length === 0) return [];
  const byId = new Map(modules.map((m) => [m.node_id, m]));
  const key = (from: string, specifier: string, line: number, column: number) =>
    `${from}\u0000${specifier}\u0000${line}\u0000${column}`;
  const required = new Map<string, Edge>();
  for (const edge of edges)
    if (edge.kind === 'require') required.set(key(edge.from, edge.specifier, edge.line, edge.column), edge);
  const starsOf = new Map<string, StarExport[]>();
  for (const star of stars) starsOf.set(star.module, [...(starsOf.get(star.module) ?? []), star]);
  const unknowns: Unknown[] = [];
  // Per module: expanding (a cycle when met again), or done with whether all its names are known.
  const state = new Map<string, 'expanding' | 'known' | 'open'>();
  const nameOf = (id: string) => byId.get(id)?.path ?? id;

  const expand = (id: string): 'known' | 'open' => {
    const done = state.get(id);
    if (done === 'known' || done === 'open') return done;
    state.set(id, 'expanding');
    const module = byId.get(id)!;
    const at = new Map((starsOf.get(id) ?? []).map((s) => [s.index, s]));
    const own = new Set(module.exports.filter((_, i) => !at.has(i)).map((e) => e.name));
    const listed: ExportShape[] = [];
    let open = false;
    module.exports.forEach((shape, i) => {
      const star = at.get(i);
      if (star === undefined) {
        listed.push(shape);
        if (shape.name === '*' || shape.name === 'module.exports') open = true;
        return;
      }
      const edge =
        star.specifier === null ? undefined : required.get(key(star.from, star.specifier, star.line, star.column));
      const target = edge?.target_kind === 'module' && edge.to !== null && byId.has(edge.to) ? edge.to : null;
      const why =
        star.specifier === null
          ? 'which module is computed when the code runs'
          : target === null
            ? `${star.specifier} is not a script of the application`
            : state.get(target) === 'expanding'
              ? `${nameOf(target)} requires this module back, so the names it has then depend on which one is loaded first`
              : expand(target) === 'open'
                ? `not all names of ${nameOf(target)} are known`
                : null;
      if (why !== null) {
        listed.push(shape);
        open = true;
        unknowns.push({
          scope: id,
          kind: 'reexported-names-unknown',
          message: `__exportStar(require(${star.specifier === null ? '…' : JSON.stringify(star.specifier)})) copies every name of another module, but ${why}: listed as "*".`,
        });
        return;
      }
      for (const copied of byId.get(target!)!.exports) {
        if (copied.name === 'default' || own.has(copied.name)) continue;
        own.add(copied.name);
        listed.push({ ...copied, system: 'commonjs' });
      }
    });
    module.exports.splice(0, module.exports.length, ...listed);
    const result = open ? 'open' : 'known';
    state.set(id, result);
    return result;
  };
  for (const id of starsOf.keys()) if (byId.has(id)) expand(id);
  return unknowns;
}
