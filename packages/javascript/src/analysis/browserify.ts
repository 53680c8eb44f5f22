// Browserify's (browser-pack's) runtime shape: the module table passed to its prelude,
// `{ 1: [function (require, module, exports) { … }, { "./greet.js": 2 }], … }`, each module a factory
// and the map from the specifiers it requires to the ids they resolve to.
import type { EsNode } from '../engine/parser.js';
import type { RecoveredEdge, RecoveredModule } from './bundles.js';
import { stringValue } from './walk.js';

/** A browserify module: the factory's span and its dependency map. */
export type BrowserifyModule = RecoveredModule & { deps: Map<string, string> };

const keyOf = (key: EsNode): string | null =>
  key.type === 'Literal' && (typeof key.value === 'number' || typeof key.value === 'string')
    ? String(key.value)
    : key.type === 'Identifier'
      ? (key.name as string)
      : null;

/**
 * The modules of a browserify table, or null when `node` (an object literal) is not one. Parcel's
 * table without scope hoisting has the same shape, its factories taking a fourth parameter
 * (`__globalThis`) and its ids strings.
 */
export function browserifyTable(
  node: EsNode,
  bundler: 'browserify' | 'parcel' = 'browserify',
): BrowserifyModule[] | null {
  const properties = node.properties as EsNode[];
  if (properties.length === 0) return null;
  const modules: BrowserifyModule[] = [];
  for (const property of properties) {
    if (property.type !== 'Property' || property.computed) return null;
    const id = keyOf(property.key as EsNode);
    const value = property.value as EsNode;
    if (id === null || value.type !== 'ArrayExpression') return null;
    const [fn, deps] = value.elements as (EsNode | null)[];
    if (fn?.type !== 'FunctionExpression' || deps?.type !== 'ObjectExpression') return null;
    const params = fn.params as EsNode[];
    // Parcel gives a module with nothing to run (a stylesheet's stand-in) a factory without parameters.
    const empty = bundler === 'parcel' && params.length === 0;
    if (params.length > (bundler === 'parcel' ? 4 : 3) || (!empty && params[0]?.type !== 'Identifier')) return null;
    const map = new Map<string, string>();
    for (const dep of deps.properties as EsNode[]) {
      if (dep.type !== 'Property') return null;
      const specifier = stringValue(dep.key) ?? keyOf(dep.key as EsNode);
      const target = dep.value as EsNode;
      // An ignored or excluded dependency maps to false (or undefined): not an edge.
      if (specifier !== null && target.type === 'Literal' && typeof target.value !== 'boolean') {
        map.set(specifier, String(target.value));
      }
    }
    modules.push({
      bundler,
      moduleId: id,
      start: fn.start ?? 0,
      end: fn.end ?? 0,
      startLine: fn.loc!.start.line,
      endLine: fn.loc!.end.line,
      requireName: empty ? null : (params[0]!.name as string),
      node: fn,
      structure: null,
      deps: map,
    });
  }
  return modules;
}

/**
 * The edges of a browserify bundle: calls of a factory's require with a specifier its map resolves.
 * A Parcel table may map a specifier to a module of another bundle: that edge is kept, marked cross-file.
 */
export function browserifyEdges(
  modules: BrowserifyModule[],
  calls: { name: string; arg: string | null; offset: number; line: number; column: number }[],
  holder: (offset: number) => BrowserifyModule | null,
): RecoveredEdge[] {
  const ids = new Set(modules.map((m) => m.moduleId));
  const edges: RecoveredEdge[] = [];
  for (const call of calls) {
    const module = call.arg === null ? null : holder(call.offset);
    const target = module?.requireName === call.name ? module.deps.get(call.arg!) : undefined;
    const parcel = module?.bundler === 'parcel';
    if (target === undefined || (!ids.has(target) && !parcel)) continue;
    const { offset, line, column } = call;
    edges.push({
      offset,
      line,
      column,
      toModuleId: target,
      specifier: call.arg!,
      crossFile: parcel && !ids.has(target),
    });
  }
  return edges;
}
