// What the names of a file are bound to, as far as Electron's and Node's modules go: which local
// binding holds `require("electron")`, its `ipcMain`, `require("fs")` or one of its functions, through
// destructuring with renames, member aliases and ES imports, with JavaScript's scoping (var hoisted to
// its function, let/const/class to their block, parameters shadowing). Minified code renames every
// local, so IPC and effect detection asks this, not the spelling, what a call reaches.
import type { EsNode } from '../engine/parser.js';
import type { RecoveredBundle } from './bundles.js';
import { memberPath, stringValue } from './walk.js';

/** The modules whose bindings are followed, by the name their members are reported under. */
const FOLLOWED = new Map<string, string>([
  ['electron', ''],
  ['electron/main', ''],
  ['electron/renderer', ''],
  ['electron/common', ''],
  ['fs', 'fs'],
  ['original-fs', 'fs'],
  ['fs/promises', 'fs.promises'],
  ['child_process', 'child_process'],
  ['http', 'http'],
  ['https', 'https'],
  ['http2', 'http2'],
  ['net', 'net'],
  ['tls', 'tls'],
  ['dgram', 'dgram'],
  ['dns', 'dns'],
  ['vm', 'vm'],
]);

/**
 * What a value is: a followed module (`''` for electron itself, `fs`) or one of its members
 * (`ipcMain`, `fs.writeFileSync`); null when it is not known to be one.
 */
type Origin = string | null;

/** The origin `require(specifier)` gives, or null when the module is not followed. */
function moduleOrigin(specifier: string): Origin {
  return FOLLOWED.get(specifier.startsWith('node:') ? specifier.slice(5) : specifier) ?? null;
}

/** The names modules are reported under: an interop wrapper's `default` of one is the module itself. */
const ROOTS = new Set(FOLLOWED.values());

/** electron and the objects IPC goes through: a use of them that is not followed may hide channels. */
const IPC_OBJECTS = new Set(['', 'ipcMain', 'ipcRenderer', 'contextBridge']);

/** The source text may bind a followed module (a cheap test before any scope is built). */
export const MAY_BIND =
  /["'`](?:node:)?(?:electron|fs|original-fs|child_process|https?|http2|net|tls|dgram|dns|vm)(?:\/[a-z]+)?["'`]/;

const join = (origin: string, member: string) => (origin === '' ? member : `${origin}.${member}`);

/**
 * What a bundle's own runtime requires: the module each bundler require call loads, by the call's
 * offset (`t(157)`, module 157 being `e.exports = require("electron")`), and the offsets of those
 * modules' `require` calls, followed through every bundler require of them.
 */
export interface Required {
  calls: ReadonlyMap<number, string>;
  followed: ReadonlySet<number>;
}

const NOTHING_REQUIRED: Required = { calls: new Map(), followed: new Set() };

/**
 * The bundler requires of `bundle` that load a module whose whole body re-exports a followed module
 * (webpack's externals: `157(e){e.exports=require("electron")}`); see {@link Required}.
 */
export function externalRequires(bundle: RecoveredBundle): Required {
  const externals = new Map<string, { specifier: string; offset: number }>();
  for (const m of bundle.modules) {
    const found = m.node === null ? null : reexported(m.node);
    if (found !== null) externals.set(m.moduleId, found);
  }
  if (externals.size === 0) return NOTHING_REQUIRED;
  const calls = new Map<number, string>();
  const elsewhere = new Set<string>();
  for (const edge of bundle.edges) {
    const external = externals.get(edge.toModuleId);
    if (external === undefined) continue;
    if (edge.crossFile) elsewhere.add(edge.toModuleId);
    else calls.set(edge.offset, external.specifier);
  }
  const followed = new Set<number>();
  for (const [id, external] of externals) if (!elsewhere.has(id)) followed.add(external.offset);
  return { calls, followed };
}

/**
 * The module a factory whose one statement is `module.exports = require("m")` re-exports, with the
 * offset of that require call, or null.
 */
function reexported(factory: EsNode): { specifier: string; offset: number } | null {
  const fn = factory.type === 'Property' ? (factory.value as EsNode) : factory;
  const body = fn.body as EsNode | undefined;
  if (body?.type !== 'BlockStatement') return null;
  const statements = (body.body as EsNode[]).filter((s) => s.directive === undefined);
  const only = statements.length === 1 ? statements[0]! : null;
  const assignment = only?.type === 'ExpressionStatement' ? (only.expression as EsNode) : null;
  if (assignment?.type !== 'AssignmentExpression' || !/\.exports$/.test(memberPath(assignment.left) ?? '')) return null;
  const right = assignment.right as EsNode;
  if (right.type !== 'CallExpression' || memberPath(right.callee) !== 'require') return null;
  const args = right.arguments as EsNode[];
  const specifier = args.length === 1 ? stringValue(args[0]) : null;
  return specifier !== null && moduleOrigin(specifier) !== null ? { specifier, offset: right.start ?? -1 } : null;
}

interface Scope {
  parent: Scope | null;
  /** Function scopes take `var` declarations; block scopes only let/const/class. */
  fn: boolean;
  /** Names declared in this scope; the value is what the name is bound to. */
  names: Map<string, Origin> | null;
  /**
   * Whether each name is declared only by declarators without a value (`var o;`), so that what it
   * holds is what is assigned to it (`o = require("electron")`); false once declared otherwise.
   */
  bare: Map<string, boolean> | null;
  /** What the assignments to a bare name so far agree it holds (null when they disagree). */
  given: Map<string, Origin> | null;
}

/** What {@link moduleBindings} found in one program. */
export interface ModuleBindings {
  /** The resolved name of calls whose callee reaches a followed module (`ipcMain.on`, `fs.writeFileSync`). */
  calls: Map<EsNode, string>;
  /**
   * References to electron (or one of its members) that are not followed: passed to a function,
   * stored in a property, reassigned. IPC sites reached through them are not listed.
   */
  untracked: EsNode[];
}

const FUNCTION = /^(?:FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/;

const newScope = (parent: Scope | null, fn: boolean): Scope => ({ parent, fn, names: null, bare: null, given: null });

function patternNames(pattern: EsNode | null | undefined, out: string[]): void {
  const stack: (EsNode | null | undefined)[] = [pattern];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) continue;
    if (node.type === 'Identifier') out.push(node.name as string);
    else if (node.type === 'ObjectPattern')
      for (const p of node.properties as EsNode[]) stack.push(p.type === 'RestElement' ? p : (p.value as EsNode));
    else if (node.type === 'ArrayPattern') for (const e of node.elements as (EsNode | null)[]) stack.push(e);
    else if (node.type === 'RestElement') stack.push(node.argument as EsNode);
    else if (node.type === 'AssignmentPattern') stack.push(node.left as EsNode);
  }
}

/** Declares `name` in `scope`; `bare` for a declarator without a value (see {@link Scope.bare}). */
function declare(scope: Scope, name: string, bare = false): void {
  (scope.names ??= new Map()).set(name, null);
  const bareNames = (scope.bare ??= new Map());
  bareNames.set(name, bare && bareNames.get(name) !== false);
}

function functionScope(scope: Scope): Scope {
  let s = scope;
  while (!s.fn && s.parent) s = s.parent;
  return s;
}

/** The scope that declares `name` as seen from `scope`, or null for a global. */
function lookup(scope: Scope | null, name: string): Scope | null {
  for (let s = scope; s; s = s.parent) if (s.names?.has(name)) return s;
  return null;
}

interface Frame {
  node: EsNode;
  scope: Scope;
  parent: EsNode | null;
  /** The parent's parent (an object literal, or a destructuring pattern, for a property). */
  grand: EsNode | null;
  key: string;
}

function children(frame: Frame, scopeOf: Map<EsNode, Scope>, push: (f: Frame) => void): void {
  const { node } = frame;
  const scope = scopeOf.get(node) ?? frame.scope;
  const list: Frame[] = [];
  for (const key in node) {
    const value = node[key];
    if (value === null || typeof value !== 'object' || key === 'loc' || key === 'range') continue;
    // A function's name and parameters belong to its own scope; a class's name is declared outside.
    if (Array.isArray(value)) {
      for (const item of value)
        if (item && typeof (item as EsNode).type === 'string')
          list.push({ node: item as EsNode, scope, parent: node, grand: frame.parent, key });
    } else if (typeof (value as EsNode).type === 'string')
      list.push({ node: value as EsNode, scope, parent: node, grand: frame.parent, key });
  }
  for (let i = list.length - 1; i >= 0; i -= 1) push(list[i]!);
}

function traverse(
  program: EsNode,
  scopeOf: Map<EsNode, Scope>,
  visit: (frame: Frame) => void,
  every?: () => void,
): void {
  const root: Scope = scopeOf.get(program) ?? newScope(null, true);
  const stack: Frame[] = [{ node: program, scope: root, parent: null, grand: null, key: '' }];
  let count = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    count += 1;
    if (every && count % 50_000 === 0) every();
    visit(frame);
    children(frame, scopeOf, (f) => stack.push(f));
  }
}

/**
 * Declares what `frame.node` declares, creating the scope a function or block opens; lists the
 * declarators and the writes to a name (assignments, updates, for-in/of targets) with their scope.
 */
function declarations(
  frame: Frame,
  scopeOf: Map<EsNode, Scope>,
  declarators: [EsNode, Scope][],
  writes: [EsNode, Scope][],
): void {
  const { node, scope } = frame;
  const open = (fn: boolean): Scope => {
    const created = newScope(scope, fn);
    scopeOf.set(node, created);
    return created;
  };
  if (node.type === 'Program') {
    scopeOf.set(node, newScope(null, true));
  } else if (
    node.type === 'AssignmentExpression' ||
    node.type === 'UpdateExpression' ||
    ((node.type === 'ForInStatement' || node.type === 'ForOfStatement') &&
      (node.left as EsNode).type !== 'VariableDeclaration')
  ) {
    writes.push([node, scope]);
  } else if (FUNCTION.test(node.type)) {
    if (node.type === 'FunctionDeclaration' && node.id) declare(scope, (node.id as EsNode).name as string);
    const inner = open(true);
    if (node.type === 'FunctionExpression' && node.id) declare(inner, (node.id as EsNode).name as string);
    const names: string[] = [];
    for (const p of node.params as EsNode[]) patternNames(p, names);
    for (const name of names) declare(inner, name);
  } else if (
    node.type === 'BlockStatement' ||
    node.type === 'ForStatement' ||
    node.type === 'ForInStatement' ||
    node.type === 'ForOfStatement' ||
    node.type === 'SwitchStatement' ||
    node.type === 'StaticBlock'
  ) {
    open(false);
  } else if (node.type === 'CatchClause') {
    const inner = open(false);
    const names: string[] = [];
    patternNames(node.param as EsNode | null, names);
    for (const name of names) declare(inner, name);
  } else if (node.type === 'ClassDeclaration' && node.id) {
    declare(scope, (node.id as EsNode).name as string);
  } else if (node.type === 'VariableDeclaration') {
    const target = node.kind === 'var' ? functionScope(scope) : scope;
    // A for-in/of declarator without a value is given one by the loop.
    const loop = frame.key === 'left' && /^For(?:In|Of)Statement$/.test(frame.parent?.type ?? '');
    for (const d of node.declarations as EsNode[]) {
      const names: string[] = [];
      patternNames(d.id as EsNode, names);
      const bare = !loop && d.init === null && (d.id as EsNode).type === 'Identifier';
      for (const name of names) declare(target, name, bare);
      declarators.push([d, target]);
    }
  } else if (node.type === 'ImportDeclaration') {
    const origin = moduleOrigin(String((node.source as EsNode).value));
    for (const s of node.specifiers as EsNode[]) {
      const local = (s.local as EsNode).name as string;
      const imported = s.imported as EsNode | undefined;
      const name = imported ? String(imported.name ?? imported.value) : null;
      let value: Origin = null;
      if (origin !== null) {
        // A default import of a CommonJS module is the module itself.
        if (s.type === 'ImportSpecifier' && name !== 'default') value = join(origin, name!);
        else value = origin;
      }
      (scope.names ??= new Map()).set(local, value);
    }
  }
}

/**
 * The origin of an expression: `require("m")` (also wrapped once by an interop helper such as
 * `__toESM(require("m"))`), a bound name, or a member of either.
 */
function originOf(node: EsNode | null | undefined, scope: Scope, required: Required): Origin {
  const members: string[] = [];
  let current = node;
  while (current?.type === 'MemberExpression') {
    const property = current.computed
      ? stringValue(current.property)
      : ((current.property as EsNode).name as string | undefined);
    if (typeof property !== 'string') return null;
    members.push(property);
    current = current.object as EsNode;
  }
  let origin: Origin = null;
  if (current?.type === 'Identifier') {
    const declaring = lookup(scope, current.name as string);
    origin = declaring?.names?.get(current.name as string) ?? null;
  } else if (current?.type === 'CallExpression') origin = requireOrigin(current, required);
  if (origin === null) return null;
  members.reverse();
  // An interop wrapper's `default` is the CommonJS module itself.
  if (members[0] === 'default' && ROOTS.has(origin)) members.shift();
  for (const m of members) origin = join(origin, m);
  return origin;
}

function requireOrigin(call: EsNode, required: Required): Origin {
  const args = call.arguments as EsNode[];
  if (args.length === 0) return null;
  const external = required.calls.get(call.start ?? -1);
  if (external !== undefined) return moduleOrigin(external);
  const callee = call.callee as EsNode;
  if (callee.type === 'Identifier' && callee.name === 'require' && args.length === 1) {
    const specifier = stringValue(args[0]);
    return specifier === null ? null : moduleOrigin(specifier);
  }
  const first = args[0]!;
  if (callee.type !== 'Identifier' || first.type !== 'CallExpression') return null;
  const inner = first.callee as EsNode;
  if (inner.type !== 'Identifier' || inner.name !== 'require') return null;
  return requireOrigin(first, required);
}

/** Binds the names of `pattern` to members of `origin`. */
function bindPattern(pattern: EsNode, origin: Origin, scope: Scope): void {
  const stack: [EsNode, Origin][] = [[pattern, origin]];
  while (stack.length > 0) {
    const [node, value] = stack.pop()!;
    if (node.type === 'Identifier') {
      // A name declared twice with different values is not known.
      const names = (scope.names ??= new Map());
      const previous = names.get(node.name as string);
      names.set(
        node.name as string,
        previous === undefined || previous === null ? value : previous === value ? value : null,
      );
    } else if (node.type === 'AssignmentPattern') stack.push([node.left as EsNode, value]);
    else if (node.type === 'ObjectPattern') {
      for (const p of node.properties as EsNode[]) {
        if (p.type !== 'Property') continue;
        const key = p.key as EsNode;
        const name = p.computed ? stringValue(key) : String(key.name ?? key.value);
        stack.push([p.value as EsNode, value === null || name === null ? null : join(value, name)]);
      }
    }
  }
}

/**
 * The bindings of `program` to Electron's and Node's followed modules (electron, fs, child_process,
 * http(s), net, vm, …) and the calls they reach, bundler requires of re-exporting modules included
 * (`required`, see {@link externalRequires}). `every` is called at bounded intervals (cancellation).
 */
export function moduleBindings(
  program: EsNode,
  every?: () => void,
  required: Required = NOTHING_REQUIRED,
): ModuleBindings {
  const scopeOf = new Map<EsNode, Scope>();
  const declarators: [EsNode, Scope][] = [];
  const writes: [EsNode, Scope][] = [];
  traverse(program, scopeOf, (frame) => declarations(frame, scopeOf, declarators, writes), every);
  const calls = new Map<EsNode, string>();
  const untracked: EsNode[] = [];
  // The assignments that give a bare name (`var o;`) its value, with the value each gives.
  const assignments = new Map<EsNode, { scope: Scope; name: string; value: Origin }>();
  // Bind in source order: an alias follows what it names (`const e = require("electron"), r = e.ipcMain`),
  // and a bare name what was assigned to it before (`var o; o = require("electron"); var m = o.ipcMain`).
  let w = 0;
  for (let i = 0; i <= declarators.length; i += 1) {
    const next = declarators[i]?.[0].start ?? Infinity;
    for (; w < writes.length && (writes[w]![0].start ?? 0) < next; w += 1) {
      const [node, scope] = writes[w]!;
      assigned(node, scope, required, assignments);
    }
    if (i === declarators.length) break;
    const [d, target] = declarators[i]!;
    const init = d.init as EsNode | null;
    const id = d.id as EsNode;
    // `var o;` leaves a bare name to what is assigned to it (before or after: var is hoisted).
    if (init === null && id.type === 'Identifier' && target.bare?.get(id.name as string) === true) continue;
    // Names are only bound when declared once with a known value; the initializer is resolved in the
    // declaring scope (its own names shadow outer ones).
    const names: string[] = [];
    patternNames(id, names);
    const origin = init ? originOf(init, target, required) : null;
    if (origin === null) {
      for (const name of names) target.names!.set(name, null);
      continue;
    }
    bindPattern(id, origin, target);
  }
  // A bare name is bound when every assignment to it gives the same value; where they disagree, those
  // that give it electron or an IPC object are not followed.
  for (const [node, { scope, name, value }] of assignments) {
    if (scope.given!.get(name) !== null) continue;
    assignments.delete(node);
    if (value !== null && IPC_OBJECTS.has(value)) untracked.push(node);
  }
  const settled = new Set(assignments.keys());
  // A name reassigned is no longer known from there on, in source order.
  traverse(
    program,
    scopeOf,
    ({ node, scope, parent, grand, key }) => {
      if (node.type === 'AssignmentExpression' && (node.left as EsNode).type === 'Identifier' && !settled.has(node)) {
        const name = (node.left as EsNode).name as string;
        const declaring = lookup(scope, name);
        const origin = declaring?.names?.get(name);
        if (typeof origin === 'string') {
          declaring!.names!.set(name, null);
          if (IPC_OBJECTS.has(origin)) untracked.push(node);
        }
      }
      if (node.type === 'CallExpression' || node.type === 'NewExpression') {
        const callee = node.callee as EsNode;
        if (callee.type === 'MemberExpression' || callee.type === 'Identifier') {
          const origin = originOf(callee, scope, required);
          if (origin !== null && origin !== '' && memberPath(callee) !== origin) calls.set(node, origin);
        }
      }
      // electron or its IPC objects flowing anywhere but into a member access, a call, a declaration or
      // a destructuring (`register(ipcMain)`, a bundled `module.exports = require("electron")` that
      // other modules reach by id): what is done with it there is not followed.
      // What is assigned to a bare name is bound or, where its values disagree, said so above.
      if (parent !== null && escapes(parent, grand, key, node) && !bareWrite(parent, key, scope)) {
        let origin: Origin | undefined = null;
        if (node.type === 'Identifier') origin = lookup(scope, node.name as string)?.names?.get(node.name as string);
        else if (
          node.type === 'CallExpression' &&
          !required.followed.has(node.start ?? -1) &&
          !(parent.type === 'CallExpression' && requireOrigin(parent, required) !== null)
        )
          origin = requireOrigin(node, required);
        if (origin !== null && origin !== undefined && IPC_OBJECTS.has(origin)) untracked.push(node);
      }
    },
    every,
  );
  return { calls, untracked };
}

/** The names a write sets, each with the expression it is given, or null when that is not a plain value. */
function written(node: EsNode): [string, EsNode | null][] {
  if (node.type === 'UpdateExpression') {
    const argument = node.argument as EsNode;
    return argument.type === 'Identifier' ? [[argument.name as string, null]] : [];
  }
  const target = node.left as EsNode;
  if (target.type === 'Identifier') {
    // `o ||= require("electron")` and `o ??= …` give the value or leave the name as it was.
    const plain = node.type === 'AssignmentExpression' && /^(?:=|\|\|=|\?\?=)$/.test(node.operator as string);
    return [[target.name as string, plain ? (node.right as EsNode) : null]];
  }
  const names: string[] = [];
  patternNames(target, names);
  return names.map((name) => [name, null]);
}

/**
 * Records a write (see {@link written}) to a bare name: the value it gives (null when not followed),
 * combined with those given before into the name's binding.
 */
function assigned(
  node: EsNode,
  scope: Scope,
  required: Required,
  out: Map<EsNode, { scope: Scope; name: string; value: Origin }>,
): void {
  for (const [name, right] of written(node)) {
    const declaring = lookup(scope, name);
    if (declaring?.bare?.get(name) !== true) continue;
    const value = right === null ? null : originOf(right, scope, required);
    const given = (declaring.given ??= new Map());
    const combined = given.has(name) && given.get(name) !== value ? null : value;
    given.set(name, combined);
    declaring.names!.set(name, combined);
    if (node.type === 'AssignmentExpression' && right !== null) out.set(node, { scope: declaring, name, value });
  }
}

/** `node` is the value assigned to a bare name (see {@link Scope.bare}). */
function bareWrite(parent: EsNode, key: string, scope: Scope): boolean {
  if (parent.type !== 'AssignmentExpression' || key !== 'right') return false;
  const left = parent.left as EsNode;
  return left.type === 'Identifier' && lookup(scope, left.name as string)?.bare?.get(left.name as string) === true;
}

/** `node` (an identifier or a call) is used as a value other than a member's object, a callee or a declarator's init. */
function escapes(parent: EsNode, grand: EsNode | null, key: string, node: EsNode): boolean {
  switch (parent.type) {
    case 'MemberExpression':
      return key !== 'object' && parent.computed === true && parent.property === node;
    case 'CallExpression':
    case 'NewExpression':
      return key === 'arguments';
    case 'AssignmentExpression':
      return key === 'right';
    case 'Property':
      return key === 'value' && grand?.type === 'ObjectExpression';
    case 'ArrayExpression':
    case 'ReturnStatement':
    case 'SpreadElement':
    case 'ExportDefaultDeclaration':
      return true;
    default:
      return false;
  }
}
