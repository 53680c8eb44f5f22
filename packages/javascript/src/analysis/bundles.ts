// Modules recovered from the runtime shapes bundlers emit.
// - esbuild: the `__commonJS`/`__esm` wrappers (`var require_x = __commonJS({ "src/x.js"(exports,
//   module) { … } })`, whose calls `require_x()` are edges; minified, `var o=p(n=>{…})` with the helper
//   told by its shape, see esbuildHelpers.ts) and the `// src/x.js` comments that open each
//   scope-hoisted module of an unminified bundle.
// - webpack 4/5: the module table, an object literal of factories `(module, exports, require) => { … }`
//   keyed by module id (a path in development builds, a number in production), whose calls
//   `require(id)` through the factory's third parameter are edges.
// - browserify and Parcel without scope hoisting: the module table of browserify.ts.
// - Parcel with scope hoisting: the modules registered with its runtime (parcel.ts), and the hoisted
//   rest from the source map.
// - Rollup and Vite: no runtime wrapper; the modules come from the source map (mapped.ts).
import { createHash } from 'node:crypto';
import type { EsNode, LineComment } from '../engine/parser.js';
import type { DecodedSourceMap } from '../engine/sourceMap.js';
import type { ExportShape } from '../schemas.js';
import { browserifyEdges, browserifyTable } from './browserify.js';
import { wrapperHelper } from './esbuildHelpers.js';
import type { WrapperKind } from './esbuildHelpers.js';
import type { BrowserifyModule } from './browserify.js';
import { hoistedBundle, mappedBeside, parcelBundle } from './hoisted.js';
import { holderIndex } from './holders.js';
import type { PreloadDependency } from './mapped.js';
import { PARCEL_MARKER } from './parcel.js';
import { stringValue, walk } from './walk.js';

/**
 * The bundler a file's modules were recovered from; `source-map` when they come from a source map's
 * ranges and no marker names the bundler.
 */
export type BundlerName = 'esbuild' | 'webpack' | 'browserify' | 'parcel' | 'rollup' | 'vite' | 'source-map';

/** A bundled module: the bundler's id and the part of its file it spans. */
export interface RecoveredModule {
  bundler: BundlerName;
  moduleId: string;
  start: number;
  end: number;
  startLine: number;
  endLine: number;
  /** The factory's require parameter (webpack), whose calls are edges. */
  requireName: string | null;
  /** The function that is the module (webpack factory, esbuild wrapper), when there is one. */
  node: EsNode | null;
  /** {@link structureHash} of `node`, set once the bundle is recovered. */
  structure: string | null;
  /** Exports the recovery attributes to the module itself (beyond those found inside `node`). */
  exports?: ExportShape[];
}

/** An edge between two bundled modules of one file, found in the bundler's runtime calls. */
export interface RecoveredEdge {
  offset: number;
  line: number;
  column: number;
  toModuleId: string;
  specifier: string;
  /** The target may be registered by another file of the application (Parcel's shared runtime). */
  crossFile?: boolean;
}

/** What {@link recoverBundle} found in one file. */
export interface RecoveredBundle {
  bundler: BundlerName | null;
  modules: RecoveredModule[];
  edges: RecoveredEdge[];
  /** Files a Vite preload list loads beside a dynamic import (paths relative to the build's base). */
  preloads?: PreloadDependency[];
  /**
   * The one module an unmarked file's source map names (`bundler` null): a chunk of a Rollup or Vite
   * build holding one module, or a compiled file; which one, the chunks it is linked to tell (chunks.ts).
   */
  single?: RecoveredModule;
}

const MODULE_PATH = /^[\w@.+~-]+(?:\/[\w@.+~-]+)*\.(?:[cm]?[jt]sx?|json|css|vue|svelte)$/;
const WEBPACK_MARKER = /__webpack_require__|__webpack_modules__|webpackChunk/;
const isFunction = (node: EsNode | undefined): node is EsNode =>
  node !== undefined && (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression');

function span(node: EsNode) {
  return {
    start: node.start ?? 0,
    end: node.end ?? 0,
    startLine: node.loc!.start.line,
    endLine: node.loc!.end.line,
    node,
    structure: null,
  };
}

/**
 * SHA-256 of the syntax of `root` with what a rebuild changes blanked: every number (module ids) and
 * every identifier but property names (locals a minifier renames). Equal for the same module built
 * twice with renumbered ids or renamed locals.
 */
export function structureHash(root: EsNode, every?: () => void): string {
  const hash = createHash('sha256');
  const names = new WeakSet<EsNode>();
  walk(
    root,
    (node) => {
      if (node.type === 'MemberExpression' && !node.computed) names.add(node.property as EsNode);
      if (node.type === 'Property' && !node.computed) names.add(node.key as EsNode);
      let detail = '';
      if (node.type === 'Identifier') detail = names.has(node) ? String(node.name) : '';
      else if (node.type === 'Literal') detail = typeof node.value === 'number' ? '0' : String(node.value);
      else if (node.type === 'TemplateElement') detail = String((node.value as { cooked: unknown }).cooked);
      hash.update(`${node.type}:${detail};`);
    },
    every,
  );
  return hash.digest('hex');
}

/** `{ "src/x.js"(exports, module) { … } }`: the single keyed function of an esbuild wrapper. */
function wrapperOf(node: EsNode): { id: string; fn: EsNode } | null {
  if (node.type !== 'CallExpression') return null;
  const [arg] = node.arguments as EsNode[];
  if (arg?.type !== 'ObjectExpression') return null;
  const properties = arg.properties as EsNode[];
  if (properties.length !== 1 || properties[0]!.type !== 'Property') return null;
  const key = stringValue(properties[0]!.key);
  const fn = properties[0]!.value as EsNode;
  if (key === null || !MODULE_PATH.test(key) || !isFunction(fn)) return null;
  return { id: key, fn };
}

/**
 * Names each minified esbuild wrapper of `modules` after the source the map gives for the start of its
 * body (the path `--minify` dropped), where the map gives one no other wrapper took; `variables` (the
 * variable holding each wrapper → its module id) follows.
 */
function nameFromMap(modules: RecoveredModule[], map: DecodedSourceMap, variables: Map<string, string>): void {
  const taken = new Set<string>();
  for (const module of modules) {
    const body = module.node!.body as EsNode;
    const first = body.type === 'BlockStatement' ? ((body.body as EsNode[])[0] ?? body) : body;
    const source = map.sourceAt(first.loc!.start.line - 1, first.loc!.start.column);
    if (source === null || taken.has(source)) continue;
    taken.add(source);
    variables.set(module.moduleId, source);
    module.moduleId = source;
  }
}

/**
 * The module function of a minified esbuild wrapper (`p(n=>{…})`, `f(()=>{…})`): a call of a helper of
 * `helpers` with one function, of at most two parameters (exports, module) for `__commonJS` and none for
 * `__esm`; else null.
 */
function minifiedWrapper(node: EsNode, helpers: ReadonlyMap<string, WrapperKind>): EsNode | null {
  if (node.type !== 'CallExpression' || (node.callee as EsNode).type !== 'Identifier') return null;
  const kind = helpers.get((node.callee as EsNode).name as string);
  const args = node.arguments as EsNode[];
  const fn = args.length === 1 && isFunction(args[0]) ? args[0] : null;
  if (kind === undefined || fn === null) return null;
  const params = (fn.params as EsNode[]).length;
  return params <= (kind === 'commonjs' ? 2 : 0) ? fn : null;
}

/** The factory of a webpack module, or null when `value` is not a function of at most three parameters. */
function factory(id: string, value: EsNode | null | undefined): RecoveredModule | null {
  const params = value && isFunction(value) ? (value.params as EsNode[]) : null;
  if (!value || params === null || params.length > 3) return null;
  const require = params[2]?.type === 'Identifier' ? (params[2].name as string) : null;
  return { bundler: 'webpack', moduleId: id, ...span(value), requireName: require };
}

/** A webpack 4 module array (`[function (module, exports, require) { … }, …]`, ids are indices). */
function webpackArray(node: EsNode, marked: boolean): RecoveredModule[] | null {
  const elements = node.elements as (EsNode | null)[];
  if (!marked || elements.length < 2) return null;
  const modules: RecoveredModule[] = [];
  for (const [index, element] of elements.entries()) {
    if (element === null) continue;
    const module = factory(String(index), element);
    if (module === null) return null;
    modules.push(module);
  }
  return modules;
}

/** The factories of a webpack module table, or null when `node` is not one. */
function webpackTable(node: EsNode, marked: boolean): RecoveredModule[] | null {
  const properties = node.properties as EsNode[];
  if (properties.length === 0 || (!marked && properties.length < 2)) return null;
  const modules: RecoveredModule[] = [];
  let numeric = true;
  for (const property of properties) {
    if (property.type !== 'Property' || property.computed) return null;
    const key = property.key as EsNode;
    const value = property.value as EsNode;
    const id = key.type === 'Literal' ? String(key.value) : key.type === 'Identifier' ? String(key.name) : null;
    const module = id === null ? null : factory(id, value);
    if (module === null) return null;
    if (typeof key.value !== 'number') numeric = false;
    modules.push(module);
  }
  // Without a runtime marker only a table of numeric ids (a minified production build) is accepted.
  return marked || numeric ? modules : null;
}

/**
 * Recovers the bundled modules of `program` (see the module comment) with their spans and the edges
 * between them. A file with no bundler shape is not a recognised bundle.
 */
export function recoverBundle(
  program: EsNode,
  text: string,
  comments: LineComment[],
  every?: () => void,
  map: DecodedSourceMap | null = null,
): RecoveredBundle {
  const esbuild: RecoveredModule[] = [];
  // esbuild's minified wrapper helpers, by name (esbuildHelpers.ts).
  const helpers = new Map<string, WrapperKind>();
  const minified: RecoveredModule[] = [];
  let webpack: RecoveredModule[] = [];
  const variables = new Map<string, string>();
  const calls: { name: string; arg: string | null; offset: number; line: number; column: number }[] = [];
  const marked = WEBPACK_MARKER.test(text);
  const parcel = PARCEL_MARKER.test(text);
  const runtimeNames = new Set<string>(['__webpack_require__']);
  // Unmarked (minified) module arrays by variable, and the tables the runtime indexes: an array is
  // webpack's only when its runtime calls into it.
  const arrays = new Map<string, RecoveredModule[]>();
  let browserify: BrowserifyModule[] = [];
  const indexed = new Set<string>();
  walk(
    program,
    (node) => {
      if (node.type === 'VariableDeclarator' && node.init) {
        const wrapper = wrapperOf(node.init as EsNode);
        const id = node.id as EsNode;
        const init = node.init as EsNode;
        if (!marked && init.type === 'ArrayExpression' && id.type === 'Identifier') {
          const modules = webpackArray(init, true);
          if (modules !== null) arrays.set(id.name as string, modules);
        }
        if (wrapper !== null) {
          esbuild.push({ bundler: 'esbuild', moduleId: wrapper.id, ...span(wrapper.fn), requireName: null });
          if (id.type === 'Identifier') variables.set(id.name as string, wrapper.id);
        } else if (id.type === 'Identifier') {
          // Minified: the helpers are told by their shape, and a wrapper's id is the variable holding it.
          const name = id.name as string;
          const helper = wrapperHelper(init);
          if (helper !== null) helpers.set(name, helper);
          const fn = minifiedWrapper(init, helpers);
          if (fn !== null) {
            const module: RecoveredModule = { bundler: 'esbuild', moduleId: name, ...span(fn), requireName: null };
            esbuild.push(module);
            minified.push(module);
            variables.set(name, name);
          }
        }
      } else if (node.type === 'ObjectExpression' || node.type === 'ArrayExpression') {
        const table = node.type === 'ObjectExpression' ? webpackTable(node, marked) : webpackArray(node, marked);
        if (table !== null && table.length > webpack.length) webpack = table;
        const packed =
          node.type === 'ObjectExpression' ? browserifyTable(node, parcel ? 'parcel' : 'browserify') : null;
        if (packed !== null && packed.length > browserify.length) browserify = packed;
      } else if (node.type === 'CallExpression') {
        const callee = node.callee as EsNode;
        const args = node.arguments as EsNode[];
        const runtime = runtimeRequire(callee, args);
        if (runtime !== null) {
          runtimeNames.add(runtime);
          const table = tableOf(callee);
          if (table !== null) indexed.add(table);
        }
        if (callee.type === 'Identifier' && args.length <= 1) {
          const arg = args[0]?.type === 'Literal' ? String(args[0].value) : args.length === 0 ? null : undefined;
          if (arg !== undefined) {
            const { line, column } = node.loc!.start;
            calls.push({ name: callee.name as string, arg, offset: node.start ?? 0, line, column });
          }
        }
      }
      return true;
    },
    every,
  );
  if (map !== null) nameFromMap(minified, map, variables);
  for (const [name, modules] of arrays) {
    if (indexed.has(name) && modules.length > webpack.length) webpack = modules;
  }
  let bundle: RecoveredBundle =
    webpack.length > 0
      ? webpackBundle(webpack, calls, runtimeNames)
      : browserify.length > 0
        ? {
            bundler: parcel ? 'parcel' : 'browserify',
            modules: browserify,
            edges: browserifyEdges(browserify, calls, holderIndex(browserify)),
          }
        : parcel
          ? parcelBundle(program, text, map, every)
          : esbuildBundle(esbuild, variables, calls, comments, program);
  // Minified, the code esbuild hoists beside its wrappers (the entry, ES modules) has no comment to
  // mark it: a source map still tells its modules.
  if (bundle.bundler === 'esbuild' && minified.length > 0 && map !== null)
    bundle.modules.push(...mappedBeside(bundle.modules, map, text, 'esbuild', every));
  if (bundle.bundler === null) bundle = hoistedBundle(program, text, map, every);
  for (const m of bundle.modules) if (m.node !== null) m.structure = structureHash(m.node, every);
  return bundle;
}

type Call = { name: string; arg: string | null; offset: number; line: number; column: number };

/** True when `node` is `<module>.exports`, the exports of the module object named `module`. */
function exportsOf(node: EsNode | undefined, module: EsNode | undefined): boolean {
  if (node?.type !== 'MemberExpression' || node.computed || module?.type !== 'Identifier') return false;
  const object = node.object as EsNode;
  return (node.property as EsNode).name === 'exports' && object.type === 'Identifier' && object.name === module.name;
}

/**
 * The name of webpack's runtime require function when `callee(args)` is the runtime calling a factory
 * with a module object, its exports and itself: `modules[id](module, module.exports, require)` (webpack
 * 5) or `modules[id].call(module.exports, module, module.exports, require)` (webpack 4). Any other
 * indexed call of three arguments (a table of handlers called as `handlers[type](node, at, buffer)`)
 * is not the runtime.
 */
function runtimeRequire(callee: EsNode, args: EsNode[]): string | null {
  if (callee.type !== 'MemberExpression') return null;
  let last: EsNode | undefined;
  if (callee.computed && args.length === 3 && exportsOf(args[1], args[0])) last = args[2];
  else if (isCall(callee) && args.length === 4 && exportsOf(args[0], args[1]) && exportsOf(args[2], args[1]))
    last = args[3];
  return last?.type === 'Identifier' ? (last.name as string) : null;
}

/** The identifier the runtime indexes (`t` of `t[s](…)` or `t[s].call(…)`), or null. */
function tableOf(callee: EsNode): string | null {
  const member = isCall(callee) ? (callee.object as EsNode) : callee;
  const object = member.object as EsNode;
  return object.type === 'Identifier' ? (object.name as string) : null;
}

function isCall(member: EsNode): boolean {
  const property = member.property as EsNode;
  return !member.computed && property.name === 'call' && (member.object as EsNode).type === 'MemberExpression';
}

function webpackBundle(modules: RecoveredModule[], calls: Call[], runtime: ReadonlySet<string>): RecoveredBundle {
  const ids = new Set(modules.map((m) => m.moduleId));
  const edges: RecoveredEdge[] = [];
  const holderOf = holderIndex(modules);
  for (const call of calls) {
    if (call.arg === null || !ids.has(call.arg)) continue;
    const holder = holderOf(call.offset);
    // Inside a factory: its own require parameter; outside (the entry, inlined in the bootstrap): the runtime's.
    const requires =
      holder === null
        ? runtime.has(call.name)
        : holder.requireName === call.name || call.name === '__webpack_require__';
    if (!requires) continue;
    edges.push({
      offset: call.offset,
      line: call.line,
      column: call.column,
      toModuleId: call.arg,
      specifier: `${call.name}(${call.arg})`,
    });
  }
  return { bundler: 'webpack', modules, edges };
}

function esbuildBundle(
  modules: RecoveredModule[],
  variables: Map<string, string>,
  calls: Call[],
  comments: LineComment[],
  program: EsNode,
): RecoveredBundle {
  const wrapped = new Set(modules.map((m) => m.moduleId));
  const markers = comments.filter((c) => MODULE_PATH.test(c.value));
  const end = program.end ?? 0;
  const lastLine = program.loc?.end.line ?? 1;
  markers.forEach((marker, index) => {
    if (wrapped.has(marker.value)) return;
    const next = markers[index + 1];
    modules.push({
      bundler: 'esbuild',
      moduleId: marker.value,
      start: marker.start,
      end: next ? next.start : end,
      startLine: marker.line,
      endLine: next ? Math.max(marker.line, next.line - 1) : lastLine,
      requireName: null,
      node: null,
      structure: null,
    });
  });
  const edges = calls
    .filter((c) => c.arg === null && variables.has(c.name))
    .map((c) => ({
      offset: c.offset,
      line: c.line,
      column: c.column,
      toModuleId: variables.get(c.name)!,
      specifier: c.name,
    }));
  const recognised = modules.length > 0 && (variables.size > 0 || markers.length > 1);
  return recognised ? { bundler: 'esbuild', modules, edges } : { bundler: null, modules: [], edges: [] };
}
