// What one parsed file says: its imports and exports, string literals, URLs, IPC channels, dynamic
// code sites, Node built-ins and the Electron window options it sets. One pass over the AST.
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import type { EsNode } from '../engine/parser.js';
import type { ExportShape } from '../schemas.js';
import { FlagSites } from './flags.js';
import type { FlagSite } from './flags.js';
import { MAY_BIND, moduleBindings } from './bindings.js';
import type { Required } from './bindings.js';
import { memberPath, stringValue, walk } from './walk.js';
import { aliasedPath, bodyStatements, topExpressions } from './moduleParams.js';
import type { ModuleParams, Unfollowed } from './moduleParams.js';

import { MAX_STRINGS_PER_FILE, MAX_STRING_LENGTH } from '../limits.js';

export { MAX_STRINGS_PER_FILE, MAX_STRING_LENGTH };

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith('_')));
const URL_PATTERN = /\b(?:https?|wss?|ftp|file):\/\/[^\s"'`<>()\\]+/g;
const IPC =
  /(?:^|\.)(ipcMain\.(?:handle|handleOnce|on|once|removeHandler)|ipcRenderer\.(?:invoke|send|sendSync|sendToHost|on|once|postMessage)|contextBridge\.exposeInMainWorld|contextBridge\.exposeInIsolatedWorld|webContents\.send)$/;

/** The kinds of side effect a call site can have, observed statically. */
export type EffectCategory = 'network' | 'filesystem' | 'process' | 'dom';

const FS_BARE =
  /^(?:(?:read|write|append)File(?:Sync)?|(?:unlink|mkdir|rmdir|rm|rename|copyFile|readdir|symlink|chmod|chown|truncate|mkdtemp|cp)(?:Sync)?|create(?:Read|Write)Stream)$/;
const EFFECTS: [EffectCategory, RegExp][] = [
  [
    'network',
    /^(?:(?:window\.|globalThis\.|self\.)?(?:fetch|XMLHttpRequest|WebSocket|EventSource)|navigator\.sendBeacon|(?:https?|http2|net|tls|dgram|dns)\.\w+|net\.request|session\.\w+\.(?:fetch|webRequest\.\w+))$/,
  ],
  ['filesystem', /^(?:(?:fs|fsp|fsPromises|fs\.promises|original-fs)\.\w+|shell\.(?:openPath|trashItem))$/],
  [
    'process',
    /^(?:(?:child_process|cp|childProcess)\.\w+|(?:spawn|exec|execFile|fork)(?:Sync)?|process\.(?:exit|kill|abort|chdir|dlopen)|shell\.openExternal|utilityProcess\.fork|app\.(?:relaunch|exit|quit))$/,
  ],
  [
    'dom',
    /^(?:(?:window\.)?document\.\w+(?:\.\w+)*|\w+(?:\.\w+)*\.(?:insertAdjacentHTML|appendChild|replaceChildren|setAttribute)|(?:window\.)?localStorage\.\w+)$/,
  ],
];

/** The side-effect category of a called name (`fetch`, `fs.writeFile`, `child_process.spawn`, …), or null. */
export function effectOf(name: string): EffectCategory | null {
  if (FS_BARE.test(name)) return 'filesystem';
  for (const [category, pattern] of EFFECTS) if (pattern.test(name)) return category;
  return null;
}

/** A position in the file: 1-based line, 0-based column, and the offset from the start. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/**
 * An export as observed: its shape and, for `__exportStar(require("./m"), exports)` and
 * `export * from './m'` (`*`), the require or export declaration whose module's names it copies (they
 * are known only once imports are resolved over the whole input).
 */
export type ExportFact = ExportShape & { star?: { specifier: string | null; at: Position } };

/** Everything {@link collectFacts} observed in one file. */
export interface FileFacts {
  imports: { specifier: string; kind: 'require' | 'import' | 'dynamic-import' | 'export-from'; at: Position }[];
  exports: ExportFact[];
  /** Where each export of `exports` was observed (same order), to place it in a bundled module. */
  exportOffsets: number[];
  strings: { value: string; truncated: boolean; at: Position }[];
  stringTotal: number;
  urls: { url: string; host: string | null; at: Position }[];
  ipc: { api: string; channel: string | null; at: Position }[];
  dynamicCode: { kind: 'eval' | 'function-constructor' | 'string-timer' | 'vm'; at: Position }[];
  effects: { category: EffectCategory; api: string; at: Position }[];
  builtins: string[];
  usesElectron: boolean;
  preloads: string[];
  loadedPages: string[];
  /** Feature-flag checks and environment flags, in source order. */
  flags: FlagSite[];
  /** Where electron or its IPC objects are passed on, stored or reassigned: what follows is not tracked. */
  untracked: Position[];
  /** Where a bundled module's exports or module parameter is reassigned or passed on (moduleParams.ts). */
  exportsUnfollowed: { why: Unfollowed['why']; at: Position }[];
}

function at(node: EsNode): Position {
  return { line: node.loc?.start.line ?? 1, column: node.loc?.start.column ?? 0, offset: node.start ?? 0 };
}

/** The Node built-in a specifier names (without `node:`), or null. */
export function builtinOf(specifier: string): string | null {
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  const base = name.split('/')[0]!;
  return BUILTINS.has(name) || (specifier.startsWith('node:') && BUILTINS.has(base)) ? name : null;
}

function hostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname;
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

/**
 * What `Function.prototype.length` of a function with `params` is: the parameters before the first
 * with a default value or the rest parameter.
 */
function functionLength(params: readonly EsNode[]): number {
  const cut = params.findIndex((p) => p.type === 'AssignmentPattern' || p.type === 'RestElement');
  return cut < 0 ? params.length : cut;
}

/** What a name of the module's top level is declared as (for `exports.add = add`), or null. */
export type Declared = (name: string) => EsNode | null;

const FUNCTION_TYPES = /^(?:Function|ArrowFunction)(?:Expression|Declaration)$/;

/**
 * The export shape of `value` exported as `name`: function (with its `length`), class, value or
 * unknown. An identifier is read through `declared` when given (a top-level declaration); the value of
 * a chained assignment (`exports.a = exports.b = void 0`) is its last right-hand side.
 */
export function shapeOf(
  name: string,
  system: 'esm' | 'commonjs',
  value: EsNode | null | undefined,
  declared?: Declared,
): ExportShape {
  while (value?.type === 'AssignmentExpression') value = value.right as EsNode;
  if (value?.type === 'Identifier' && declared) value = declared(value.name as string) ?? value;
  if (!value) return { name, system, value_kind: 'unknown', arity: null };
  if (FUNCTION_TYPES.test(value.type)) {
    return { name, system, value_kind: 'function', arity: functionLength(value.params as EsNode[]) };
  }
  if (value.type === 'ClassDeclaration' || value.type === 'ClassExpression') {
    return { name, system, value_kind: 'class', arity: null };
  }
  if (value.type === 'Identifier') return { name, system, value_kind: 'unknown', arity: null };
  return { name, system, value_kind: 'value', arity: null };
}

/** The names a binding pattern declares (`{ a, b: [c] }`: a, c), in source order. */
function boundNames(pattern: EsNode): string[] {
  const names: string[] = [];
  const stack: EsNode[] = [pattern];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'Identifier') names.push(node.name as string);
    else if (node.type === 'AssignmentPattern') stack.push(node.left as EsNode);
    else if (node.type === 'RestElement') stack.push(node.argument as EsNode);
    else if (node.type === 'ObjectPattern') {
      const properties = node.properties as EsNode[];
      for (let i = properties.length - 1; i >= 0; i -= 1) {
        const p = properties[i]!;
        stack.push(p.type === 'RestElement' ? p : (p.value as EsNode));
      }
    } else if (node.type === 'ArrayPattern') {
      const elements = node.elements as (EsNode | null)[];
      for (let i = elements.length - 1; i >= 0; i -= 1) if (elements[i]) stack.push(elements[i]!);
    }
  }
  return names;
}

/**
 * The ES exports of an export declaration; a local name exported (`export { helper }`,
 * `export default helper`) has the shape of its top-level declaration (`declared`).
 */
function esmExports(node: EsNode, out: ExportFact[], declared: Declared): void {
  if (node.type === 'ExportDefaultDeclaration') {
    out.push(shapeOf('default', 'esm', node.declaration as EsNode, declared));
  } else if (node.type === 'ExportAllDeclaration') {
    const exported = node.exported as EsNode | null;
    // `export * as ns from` is the one name ns; `export * from` copies the names of the module it names.
    if (exported) {
      out.push({ name: String(exported.name ?? exported.value), system: 'esm', value_kind: 'reexport', arity: null });
    } else {
      const specifier = stringValue(node.source as EsNode);
      out.push({ name: '*', system: 'esm', value_kind: 'reexport', arity: null, star: { specifier, at: at(node) } });
    }
  } else if (node.type === 'ExportNamedDeclaration') {
    const declaration = node.declaration as EsNode | null;
    if (declaration?.type === 'VariableDeclaration') {
      for (const d of declaration.declarations as EsNode[]) {
        const id = d.id as EsNode;
        if (id.type === 'Identifier') out.push(shapeOf(id.name as string, 'esm', d.init as EsNode | null));
        // `export const { a, b } = value`: what each name holds is not read here.
        else for (const name of boundNames(id)) out.push({ name, system: 'esm', value_kind: 'unknown', arity: null });
      }
    } else if (declaration) {
      out.push(shapeOf(String((declaration.id as EsNode | null)?.name ?? 'default'), 'esm', declaration));
    }
    for (const s of (node.specifiers as EsNode[]) ?? []) {
      const exported = s.exported as EsNode;
      const name = String(exported.name ?? exported.value);
      if (node.source) out.push({ name, system: 'esm', value_kind: 'reexport', arity: null });
      else out.push(shapeOf(name, 'esm', s.local as EsNode, declared));
    }
  }
}

/**
 * The exports bundlers define with getters: webpack's `__webpack_require__.d(exports, { name: () => x })`
 * and esbuild's `__export(target, { name: () => x })`.
 */
function bundlerExports(node: EsNode, out: ExportShape[], pathOf: PathOf): void {
  if (node.type !== 'CallExpression') return;
  const name = pathOf(node.callee);
  const args = node.arguments as EsNode[];
  if ((name !== '__webpack_require__.d' && name !== '__export') || args[1]?.type !== 'ObjectExpression') return;
  for (const p of args[1].properties as EsNode[]) {
    if (p.type !== 'Property' || p.computed) continue;
    const key = p.key as EsNode;
    const getter = p.value as EsNode;
    if (getter.type !== 'ArrowFunctionExpression' && getter.type !== 'FunctionExpression') continue;
    out.push({ name: String(key.name ?? key.value), system: 'esm', value_kind: 'unknown', arity: null });
  }
}

/** The member path of a node, a bundled module's parameters read as what they are (moduleParams.ts). */
type PathOf = (node: unknown) => string | null;

const isExportsObject = (node: EsNode | undefined, pathOf: PathOf) =>
  /^(?:module\d*\.exports|exports\d*)$/.test(pathOf(node) ?? '');

/**
 * The CommonJS exports a call defines: `Object.defineProperty(exports, "x", { enumerable: true, get… })`
 * (TypeScript's re-exports; a property that is not enumerable is not listed, as `Object.keys` does not)
 * and `__exportStar(require("./m"), exports)` (every name of another module: `*`, with the require).
 */
function commonJsCall(node: EsNode, out: ExportFact[], pathOf: PathOf, declared?: Declared): void {
  if (node.type !== 'CallExpression') return;
  const name = pathOf(node.callee);
  const args = node.arguments as EsNode[];
  if (name === 'Object.defineProperty' && isExportsObject(args[0], pathOf) && args[2]?.type === 'ObjectExpression') {
    const key = stringValue(args[1]);
    if (key === null) return;
    let enumerable = false;
    let shape: ExportShape = { name: key, system: 'commonjs', value_kind: 'unknown', arity: null };
    for (const p of args[2].properties as EsNode[]) {
      if (p.type !== 'Property' || p.computed) continue;
      const field = String((p.key as EsNode).name ?? (p.key as EsNode).value);
      const value = p.value as EsNode;
      if (field === 'enumerable') enumerable = isTrue(value);
      else if (field === 'value') shape = shapeOf(key, 'commonjs', value, declared);
      else if (field === 'get' && reexportGetter(value)) shape = { ...shape, value_kind: 'reexport' };
    }
    if (enumerable) out.push(shape);
  } else if (
    name !== null &&
    /(?:^|\.)__exportStar$/.test(name) &&
    isExportsObject(args[1], pathOf) &&
    args[0]?.type === 'CallExpression' &&
    memberPath((args[0].callee as EsNode) ?? null) === 'require'
  ) {
    const specifier = stringValue((args[0].arguments as EsNode[])[0]);
    out.push({
      name: '*',
      system: 'commonjs',
      value_kind: 'reexport',
      arity: null,
      star: { specifier, at: at(args[0]) },
    });
  }
}

/** `true`, or `!0` as minifiers write it. */
const isTrue = (node: EsNode): boolean =>
  (node.type === 'Literal' && node.value === true) ||
  (node.type === 'UnaryExpression' &&
    node.operator === '!' &&
    (node.argument as EsNode).type === 'Literal' &&
    (node.argument as EsNode).value === 0);

/** A getter that returns a member of another binding (`function () { return m.x; }`, `() => m.x`). */
function reexportGetter(getter: EsNode): boolean {
  if (getter.type !== 'FunctionExpression' && getter.type !== 'ArrowFunctionExpression') return false;
  let body = getter.body as EsNode;
  if (body.type === 'BlockStatement') {
    const statements = body.body as EsNode[];
    if (statements.length !== 1 || statements[0]!.type !== 'ReturnStatement') return false;
    body = statements[0]!.argument as EsNode;
  }
  return body?.type === 'MemberExpression' && (body.object as EsNode).type === 'Identifier';
}

/** `(module.exports = f).x`: the member `x` of the object an assignment puts in place (`module.exports.x`). */
function assignedMember(left: EsNode, pathOf: PathOf): string | null {
  const inner = left.type === 'MemberExpression' && !left.computed ? (left.object as EsNode) : null;
  if (inner?.type !== 'AssignmentExpression' || inner.operator !== '=') return null;
  const object = pathOf(inner.left);
  return object === null ? null : `${object}.${String((left.property as EsNode).name)}`;
}

function commonJsExport(node: EsNode, out: ExportShape[], pathOf: PathOf, declared?: Declared): void {
  const target = pathOf(node.left) ?? assignedMember(node.left as EsNode, pathOf);
  if (target === null) return;
  const right = node.right as EsNode;
  // esbuild renames a wrapped module's parameters module2, exports2, …
  if (/^module\d*\.exports$/.test(target)) {
    if (right.type === 'ObjectExpression') {
      for (const p of right.properties as EsNode[]) {
        if (p.type !== 'Property') continue;
        const key = p.key as EsNode;
        const name = p.computed ? stringValue(key) : String(key.name ?? key.value);
        if (name !== null) out.push(shapeOf(name, 'commonjs', p.value as EsNode, declared));
      }
    } else {
      out.push(shapeOf('module.exports', 'commonjs', right, declared));
    }
    return;
  }
  const match = /^(?:module\d*\.exports|exports\d*)\.([^.]+)$/.exec(target);
  if (match) out.push(shapeOf(match[1]!, 'commonjs', right, declared));
}

/**
 * One pass over `program`: imports (require calls, import declarations, dynamic imports, re-exports),
 * ESM and CommonJS exports with value kind and arity, string literals (at most
 * {@link MAX_STRINGS_PER_FILE}, each cut at {@link MAX_STRING_LENGTH}), URLs and hosts, Electron IPC
 * sites, eval/Function/string-timer/vm sites, Node built-ins, `webPreferences.preload` values and
 * pages loaded into windows, feature-flag sites (flags.ts). `every` is called at bounded intervals
 * (cancellation).
 */
export function collectFacts(
  program: EsNode,
  every?: () => void,
  text?: string,
  required?: Required,
  params?: ModuleParams,
): FileFacts {
  const facts: FileFacts = {
    imports: [],
    exports: [],
    exportOffsets: [],
    strings: [],
    stringTotal: 0,
    urls: [],
    ipc: [],
    dynamicCode: [],
    effects: [],
    builtins: [],
    usesElectron: false,
    preloads: [],
    loadedPages: [],
    flags: [],
    untracked: [],
    exportsUnfollowed: (params?.unfollowed ?? []).map(({ node, why }) => ({ why, at: at(node) })),
  };
  // What calls reach through bindings of electron and Node's modules (renamed by minifiers).
  const bindings =
    text === undefined || MAY_BIND.test(text)
      ? moduleBindings(program, every, required)
      : { calls: new Map(), untracked: [] };
  facts.untracked = bindings.untracked.map(at);
  const flags = new FlagSites();
  const builtins = new Set<string>();
  const addImport = (specifier: string, kind: FileFacts['imports'][number]['kind'], node: EsNode) => {
    facts.imports.push({ specifier, kind, at: at(node) });
    flags.imported(specifier);
    const builtin = builtinOf(specifier);
    if (builtin !== null) builtins.add(builtin);
    if (specifier === 'electron' || specifier.startsWith('electron/')) facts.usesElectron = true;
  };
  // A top-level `module.exports = …` replaces the exported object: what top-level `exports.x = …` and
  // earlier reassignments put on it is no longer exported, and a later top-level `exports.x = …` writes
  // to the old object (unless `exports = module.exports = …` points `exports` at the new one). Only
  // top-level expressions (a sequence's in order) are read so, of the program and of each bundled
  // module's function (its unit, 1 and up; the program's is 0): in a condition or another function,
  // which assignment runs is not known statically.
  const pathOf = aliasedPath(params?.aliases ?? new Map());
  const unitOf = new Map<EsNode, number>();
  const declaredIn: Declared[] = [];
  [program, ...(params?.bodies ?? [])].forEach((body, unit) => {
    const statements = bodyStatements(body);
    declaredIn.push(topDeclarations(statements));
    for (let expression of topExpressions(statements)) {
      if (expression.type === 'CallExpression') unitOf.set(expression, unit);
      for (; expression.type === 'AssignmentExpression'; expression = expression.right as EsNode) {
        unitOf.set(expression, unit);
        // `(module.exports = f).x = 1` sets module.exports first.
        const object = (expression.left as EsNode).object as EsNode | undefined;
        if (object?.type === 'AssignmentExpression') unitOf.set(object, unit);
      }
    }
  });
  const declared = declaredIn[0]!;
  const unitAt = new Map([...unitOf].map(([node, unit]) => [node.start ?? -1, unit]));
  const rebindsExports = new Set<EsNode>();
  const exportsDetached = new Set<number>();
  const replaceCommonJs = (node: EsNode, unit: number): void => {
    for (let i = facts.exports.length - 1; i >= 0; i -= 1) {
      if (facts.exports[i]!.system !== 'commonjs' || unitAt.get(facts.exportOffsets[i]!) !== unit) continue;
      facts.exports.splice(i, 1);
      facts.exportOffsets.splice(i, 1);
    }
    if (rebindsExports.has(node)) exportsDetached.delete(unit);
    else exportsDetached.add(unit);
  };
  // `exports.c = exports.b = exports.a = void 0` sets a, then b, then c (the order Object.keys lists
  // them in): an assignment's right-hand chain is listed before it, where the chain's first one would be.
  const chainAt = new Map<EsNode, number>();
  const done = new Set<EsNode>();
  const commonJs = (node: EsNode): void => {
    if (done.has(node)) return;
    done.add(node);
    // `(module.exports = f).x = 1`: the assignment inside runs first.
    const inner = (node.left as EsNode).object as EsNode | undefined;
    if (inner?.type === 'AssignmentExpression') commonJs(inner);
    const target = pathOf(node.left);
    const unit = unitOf.get(node);
    if (target !== null && unit !== undefined) {
      if (/^module\d*\.exports$/.test(target)) replaceCommonJs(node, unit);
      else if (/^exports\d*$/.test(target) && /^module\d*\.exports$/.test(pathOf((node.right as EsNode).left) ?? ''))
        rebindsExports.add(node.right as EsNode);
      else if (exportsDetached.has(unit) && /^exports\d*\./.test(target)) return;
    }
    const index = chainAt.get(node) ?? facts.exports.length;
    if ((node.right as EsNode).type === 'AssignmentExpression') chainAt.set(node.right as EsNode, index);
    const names = unit === undefined ? undefined : declaredIn[unit];
    exported(node, (n, out) => commonJsExport(n, out, pathOf, names), index);
  };
  const exported = (node: EsNode, collect: (node: EsNode, out: ExportFact[]) => void, index?: number) => {
    const added: ExportFact[] = [];
    collect(node, added);
    let place = index ?? facts.exports.length;
    const offset = node.start ?? 0;
    for (const shape of added) {
      // A name the module's top level set before keeps its place (Object.keys' order) and takes the
      // later value (`exports.add = void 0; … exports.add = add;`); each `__exportStar` is one of its own.
      const unit = unitAt.get(offset);
      if (shape.system === 'commonjs' && shape.name !== '*' && unit !== undefined) {
        const earlier = facts.exports.findIndex(
          (e, i) => e.system === 'commonjs' && e.name === shape.name && unitAt.get(facts.exportOffsets[i]!) === unit,
        );
        if (earlier >= 0) {
          facts.exports[earlier] = shape;
          continue;
        }
      }
      facts.exports.splice(place, 0, shape);
      facts.exportOffsets.splice(place, 0, offset);
      place += 1;
    }
  };
  walk(
    program,
    (node) => {
      switch (node.type) {
        case 'ImportDeclaration':
          addImport(String((node.source as EsNode).value), 'import', node);
          break;
        case 'ExportAllDeclaration':
        case 'ExportNamedDeclaration':
          if (node.source) addImport(String((node.source as EsNode).value), 'export-from', node);
          exported(node, (n, out) => esmExports(n, out, declared));
          break;
        case 'ExportDefaultDeclaration':
          exported(node, (n, out) => esmExports(n, out, declared));
          break;
        case 'ImportExpression': {
          const specifier = stringValue(node.source);
          if (specifier !== null) addImport(specifier, 'dynamic-import', node);
          break;
        }
        case 'AssignmentExpression': {
          commonJs(node);
          const target = memberPath(node.left);
          if (target !== null && /\.(?:innerHTML|outerHTML)$/.test(target)) {
            facts.effects.push({ category: 'dom', api: target.slice(target.lastIndexOf('.') + 1), at: at(node) });
          }
          break;
        }
        case 'MemberExpression':
          flags.member(node, at(node));
          break;
        case 'NewExpression':
        case 'CallExpression':
          if (node.type === 'CallExpression') flags.call(node, at(node));
          call(node, facts, addImport, bindings.calls.get(node) ?? null);
          exported(node, (n, out) => bundlerExports(n, out, pathOf));
          if (!(
            exportsDetached.has(unitOf.get(node) ?? -1) &&
            /^exports\d*$/.test(pathOf((node.arguments as EsNode[])[0]) ?? '')
          ))
            exported(node, (n, out) => commonJsCall(n, out, pathOf, declaredIn[unitOf.get(n) ?? -1]));
          break;
        case 'Property': {
          const key = node.key as EsNode;
          if (!node.computed && (key.name === 'preload' || key.value === 'preload')) {
            const value = lastString(node.value as EsNode);
            if (value !== null) facts.preloads.push(value);
          }
          break;
        }
        case 'Literal':
        case 'TemplateLiteral': {
          const value = stringValue(node);
          if (value !== null && value.length > 0) literal(value, node, facts);
          else if (value === null && node.type === 'TemplateLiteral') templateUrls(node, facts);
          break;
        }
        default:
          break;
      }
      return true;
    },
    every,
  );
  facts.builtins = [...builtins].sort();
  facts.flags = flags.finish();
  return facts;
}

/**
 * The functions, classes and initialized variables the program's top level declares once, by name:
 * what `exports.add = add` exports. A variable whose value is computed (a call) is not read.
 */
function topDeclarations(statements: readonly EsNode[]): Declared {
  const found = new Map<string, EsNode | null>();
  const add = (name: string, value: EsNode | null) => found.set(name, found.has(name) ? null : value);
  for (let statement of statements) {
    if (statement.type === 'ExportNamedDeclaration' && statement.declaration)
      statement = statement.declaration as EsNode;
    if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id)
      add((statement.id as EsNode).name as string, statement);
    else if (statement.type === 'VariableDeclaration') {
      for (const d of statement.declarations as EsNode[]) {
        const id = d.id as EsNode;
        const init = d.init as EsNode | null;
        if (id.type !== 'Identifier') continue;
        const readable =
          init !== null &&
          (FUNCTION_TYPES.test(init.type) ||
            init.type === 'ClassExpression' ||
            (statement.kind === 'const' &&
              /^(?:Literal|ObjectExpression|ArrayExpression|TemplateLiteral)$/.test(init.type)));
        add(id.name as string, readable ? init : null);
      }
    }
  }
  return (name) => found.get(name) ?? null;
}

function literal(value: string, node: EsNode, facts: FileFacts): void {
  facts.stringTotal += 1;
  if (facts.strings.length < MAX_STRINGS_PER_FILE) {
    const truncated = value.length > MAX_STRING_LENGTH;
    facts.strings.push({ value: truncated ? value.slice(0, MAX_STRING_LENGTH) : value, truncated, at: at(node) });
  }
  if (value.includes('://')) {
    for (const match of value.slice(0, 64 * 1024).matchAll(URL_PATTERN)) {
      facts.urls.push({ url: match[0], host: hostOf(match[0]), at: at(node) });
      if (facts.urls.length >= MAX_STRINGS_PER_FILE) break;
    }
  }
}

/** What a template's substitutions are written as in the URLs found in it. */
const SUBSTITUTION = '${…}';

/**
 * The URLs of a template with substitutions (`https://api.example.com/v1/${id}`), each substitution
 * written as {@link SUBSTITUTION}; the host only when the static text holds all of it.
 */
function templateUrls(node: EsNode, facts: FileFacts): void {
  const quasis = node.quasis as { value: { cooked: string | null } }[];
  if (quasis.some((q) => q.value.cooked === null)) return;
  const text = quasis.map((q) => q.value.cooked!).join(SUBSTITUTION);
  if (!text.includes('://')) return;
  for (const match of text.slice(0, 64 * 1024).matchAll(URL_PATTERN)) {
    const url = match[0];
    const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
    const host = authority.includes(SUBSTITUTION)
      ? null
      : hostOf(url.slice(0, url.indexOf('://') + 3 + authority.length));
    facts.urls.push({ url, host, at: at(node) });
    if (facts.urls.length >= MAX_STRINGS_PER_FILE) break;
  }
}

/** Deepest nesting of joins, templates and concatenations {@link staticPath} follows. */
const MAX_PATH_DEPTH = 8;

/**
 * The path an expression builds from the script's own folder and string literals, relative to that
 * folder: `__dirname` is `.`, `path.join`/`path.resolve` (or `join`/`resolve`) join their parts, and a
 * template literal or a `+` concatenation puts its parts together (`file://${__dirname}/index.html` is
 * `file://./index.html`). Null when any part is something else.
 */
function staticPath(node: EsNode | undefined, depth = 0): string | null {
  if (node === undefined || depth > MAX_PATH_DEPTH) return null;
  const literal = stringValue(node);
  if (literal !== null) return literal;
  if (node.type === 'Identifier') return node.name === '__dirname' ? '.' : null;
  if (node.type === 'BinaryExpression' && node.operator === '+') {
    const left = staticPath(node.left as EsNode, depth + 1);
    const right = left === null ? null : staticPath(node.right as EsNode, depth + 1);
    return right === null ? null : left! + right;
  }
  if (node.type === 'TemplateLiteral') {
    const quasis = node.quasis as { value: { cooked: string | null } }[];
    const expressions = node.expressions as EsNode[];
    let text = quasis[0]!.value.cooked;
    for (let i = 0; i < expressions.length && text !== null; i += 1) {
      const part = staticPath(expressions[i], depth + 1);
      const next = quasis[i + 1]!.value.cooked;
      text = part === null || next === null ? null : text + part + next;
    }
    return text;
  }
  if (node.type === 'CallExpression' && /^(?:path\.)?(?:join|resolve)$/.test(memberPath(node.callee) ?? '')) {
    const parts: string[] = [];
    for (const arg of node.arguments as EsNode[]) {
      const part = staticPath(arg, depth + 1);
      if (part === null) return null;
      parts.push(part);
    }
    return parts.length === 0 ? null : posix.join(...parts);
  }
  return null;
}

/**
 * A file an expression names ({@link staticPath}), else the last string literal among a call's
 * arguments (`path.join(app.getAppPath(), 'preload.js')`: `preload.js`, found by its name).
 */
function lastString(node: EsNode): string | null {
  const direct = staticPath(node);
  if (direct !== null) return direct;
  if (node.type === 'CallExpression') {
    const args = node.arguments as EsNode[];
    for (let i = args.length - 1; i >= 0; i -= 1) {
      const value = stringValue(args[i]);
      if (value !== null) return value;
    }
  }
  return null;
}

function call(
  node: EsNode,
  facts: FileFacts,
  addImport: (s: string, k: 'require', n: EsNode) => void,
  bound: string | null,
): void {
  const callee = node.callee as EsNode;
  const args = node.arguments as EsNode[];
  // What the callee is bound to (`o.handle` with `{ipcMain: o} = require("electron")`), else its spelling.
  const name = bound ?? memberPath(callee);
  if (name === null) {
    // `new BrowserWindow({…}).loadFile('index.html')`: the page method of a window made in place.
    if (callee.type === 'MemberExpression' && (callee.object as EsNode).type === 'NewExpression') {
      const method = callee.computed ? stringValue(callee.property) : (callee.property as EsNode).name;
      if (method === 'loadFile' || method === 'loadURL') loadsPage(args, facts);
    }
    return;
  }
  if (node.type === 'CallExpression' && name === 'require' && args.length === 1) {
    const specifier = stringValue(args[0]);
    if (specifier !== null) addImport(specifier, 'require', node);
    return;
  }
  if (name === 'eval' && node.type === 'CallExpression') facts.dynamicCode.push({ kind: 'eval', at: at(node) });
  else if (name === 'Function' || name === 'window.Function' || name === 'globalThis.Function') {
    facts.dynamicCode.push({ kind: 'function-constructor', at: at(node) });
  } else if (/(?:^|\.)set(?:Timeout|Interval)$/.test(name) && stringValue(args[0]) !== null) {
    facts.dynamicCode.push({ kind: 'string-timer', at: at(node) });
  } else if (
    /(?:^|\.)(?:runInThisContext|runInNewContext|runInContext|compileFunction|Script)$/.test(name) &&
    /(?:^|\.)vm\./.test(name)
  ) {
    facts.dynamicCode.push({ kind: 'vm', at: at(node) });
  }
  const category = effectOf(name);
  if (category !== null) facts.effects.push({ category, api: name, at: at(node) });
  const ipc = IPC.exec(name);
  if (ipc) facts.ipc.push({ api: ipc[1]!, channel: stringValue(args[0]), at: at(node) });
  if (/(?:^|\.)(?:loadFile|loadURL)$/.test(name)) loadsPage(args, facts);
}

/** The page a `loadFile`/`loadURL` call with `args` loads, when its argument names one. */
function loadsPage(args: EsNode[], facts: FileFacts): void {
  const page = args[0] ? lastString(args[0]) : null;
  if (page !== null) facts.loadedPages.push(page);
}
