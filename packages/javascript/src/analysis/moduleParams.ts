// The exports and module objects of a bundled module's function, by the position the bundler passes
// them in: esbuild's `__commonJS` wrapper is called with (exports, module), webpack's factory with
// (module, exports, require). Minified, they are renamed (`p((e,t)=>{e.add=…;t.exports=…})`), so each
// reference of such a parameter in the function's body (where no inner declaration shadows it) is
// read as `exports`, `module` or `__webpack_require__`. A use that cannot be followed (the parameter
// reassigned, passed on, stored, or written with a computed name) is listed with the module.
import type { EsNode } from '../engine/parser.js';
import type { RecoveredModule } from './bundles.js';
import { memberPath, stringValue } from './walk.js';

/** What a bundled module's parameter is read as. */
type Role = 'exports' | 'module' | '__webpack_require__';

/** Why a parameter's use is not followed. */
export type Unfollowed = { node: EsNode; why: 'reassigned' | 'passed-on' };

/** The aliases of every bundled module's parameters in one file, and the uses not followed. */
export interface ModuleParams {
  /** Each identifier that refers to a parameter, and what it is read as. */
  aliases: Map<EsNode, Role>;
  /** The function bodies whose top-level statements run once, in order, as a module's top level. */
  bodies: EsNode[];
  unfollowed: Unfollowed[];
}

const FUNCTION = /^(?:FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/;
const ROLES: Partial<Record<RecoveredModule['bundler'], Role[]>> = {
  esbuild: ['exports', 'module'],
  webpack: ['module', 'exports', '__webpack_require__'],
};

function patternNames(pattern: EsNode | null | undefined, out: Set<string>): void {
  if (!pattern) return;
  if (pattern.type === 'Identifier') out.add(pattern.name as string);
  else if (pattern.type === 'AssignmentPattern') patternNames(pattern.left as EsNode, out);
  else if (pattern.type === 'RestElement') patternNames(pattern.argument as EsNode, out);
  else if (pattern.type === 'ArrayPattern') for (const e of pattern.elements as (EsNode | null)[]) patternNames(e, out);
  else if (pattern.type === 'ObjectPattern')
    for (const p of pattern.properties as EsNode[])
      patternNames(p.type === 'RestElement' ? p : (p.value as EsNode), out);
}

/** The names `var` and function declarations bind in the function whose body is `body`. */
function functionNames(body: EsNode, out: Set<string>): void {
  const stack = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'VariableDeclaration' && node.kind === 'var')
      for (const d of node.declarations as EsNode[]) patternNames(d.id as EsNode, out);
    if (node.type === 'FunctionDeclaration') {
      if (node.id) out.add((node.id as EsNode).name as string);
      continue;
    }
    if (FUNCTION.test(node.type) || node.type === 'ClassBody') continue;
    for (const key in node) {
      if (key === 'loc' || key === 'range') continue;
      const value = node[key];
      const items = Array.isArray(value) ? value : [value];
      for (const item of items)
        if (item !== null && typeof item === 'object' && typeof (item as EsNode).type === 'string')
          stack.push(item as EsNode);
    }
  }
}

/** The names a block (or a for statement, a catch clause, a class) declares for its own scope. */
function blockNames(node: EsNode): Set<string> {
  const out = new Set<string>();
  const lexical = (statement: EsNode | null | undefined) => {
    if (statement?.type === 'VariableDeclaration' && statement.kind !== 'var')
      for (const d of statement.declarations as EsNode[]) patternNames(d.id as EsNode, out);
    else if ((statement?.type === 'ClassDeclaration' || statement?.type === 'FunctionDeclaration') && statement.id)
      out.add((statement.id as EsNode).name as string);
  };
  if (node.type === 'BlockStatement' || node.type === 'StaticBlock') for (const s of node.body as EsNode[]) lexical(s);
  else if (node.type === 'SwitchStatement')
    for (const c of node.cases as EsNode[]) for (const s of c.consequent as EsNode[]) lexical(s);
  else if (node.type === 'ForStatement') lexical(node.init as EsNode | null);
  else if (node.type === 'ForInStatement' || node.type === 'ForOfStatement') lexical(node.left as EsNode);
  else if (node.type === 'CatchClause') patternNames(node.param as EsNode | null, out);
  else if (node.type === 'ClassExpression' && node.id) out.add((node.id as EsNode).name as string);
  return out;
}

/** The names a function other than the module's own binds: its name (an expression's), parameters, vars. */
function innerFunctionNames(fn: EsNode): Set<string> {
  const out = new Set<string>();
  if (fn.type === 'FunctionExpression' && fn.id) out.add((fn.id as EsNode).name as string);
  for (const p of fn.params as EsNode[]) patternNames(p, out);
  if ((fn.body as EsNode).type === 'BlockStatement') functionNames(fn.body as EsNode, out);
  return out;
}

/** A member of `object` with a name known statically (`o.x`, `o["x"]`), else null. */
function memberName(member: EsNode): string | null {
  if (member.type !== 'MemberExpression') return null;
  return member.computed ? stringValue(member.property) : ((member.property as EsNode).name as string);
}

/** Why `holder` (`e`, or `t.exports`), used as `parent`'s `key`, is not followed; null when it is. */
function objectUse(
  holder: EsNode,
  parent: EsNode | null,
  key: string,
  written: (node: EsNode) => boolean,
  requireName: string | null,
): Unfollowed['why'] | null {
  if (parent === null) return 'passed-on';
  // A member read by any name, or written by a name known statically.
  if (parent.type === 'MemberExpression' && key === 'object')
    return memberName(parent) !== null || !written(parent) ? null : 'passed-on';
  if (parent.type === 'CallExpression' && key === 'arguments') {
    const args = parent.arguments as EsNode[];
    const callee = parent.callee as EsNode;
    const calls = (object: string | null, property: string) =>
      object !== null &&
      callee.type === 'MemberExpression' &&
      (callee.object as EsNode).type === 'Identifier' &&
      (callee.object as EsNode).name === object &&
      memberName(callee) === property;
    if (args[0] !== holder) return 'passed-on';
    if (calls('Object', 'defineProperty') && stringValue(args[1]) !== null) return null;
    // webpack's runtime marking an ES module (`n.r(t)`) or defining its getters (`n.d(t, {…})`).
    if (calls(requireName, 'r') || calls(requireName, 'd')) return null;
  }
  return 'passed-on';
}

/** Top-level expressions of `statements`: each statement's expression, a sequence's in order. */
export function topExpressions(statements: readonly EsNode[]): EsNode[] {
  const out: EsNode[] = [];
  for (const statement of statements) {
    if (statement.type !== 'ExpressionStatement') continue;
    const expression = statement.expression as EsNode;
    if (expression.type === 'SequenceExpression') out.push(...(expression.expressions as EsNode[]));
    else out.push(expression);
  }
  return out;
}

/** The statements of a function body (an arrow's expression body as one statement). */
export function bodyStatements(body: EsNode): EsNode[] {
  if (body.type === 'BlockStatement' || body.type === 'Program') return body.body as EsNode[];
  return [{ type: 'ExpressionStatement', expression: body, start: body.start, end: body.end } as EsNode];
}

/**
 * The aliases of the parameters of each module of `modules` that is a bundler's function (esbuild
 * wrapper, webpack factory); see the module comment.
 */
export function moduleParams(modules: readonly RecoveredModule[]): ModuleParams {
  const result: ModuleParams = { aliases: new Map(), bodies: [], unfollowed: [] };
  for (const m of modules) {
    const roles = ROLES[m.bundler];
    const fn = m.node;
    if (roles === undefined || fn === null || !FUNCTION.test(fn.type)) continue;
    const params = new Map<string, Role>();
    (fn.params as EsNode[]).forEach((p, i) => {
      if (p.type === 'Identifier' && roles[i] !== undefined) params.set(p.name as string, roles[i]!);
    });
    if (params.size === 0) continue;
    result.bodies.push(fn.body as EsNode);
    followParams(fn, params, result);
  }
  return result;
}

type Frame = { node: EsNode; key: string; up: Frame | null; live: ReadonlySet<string> };

const PATTERN_PARENTS = /^(?:ArrayPattern|ObjectPattern|AssignmentPattern|RestElement)$/;

function followParams(fn: EsNode, params: ReadonlyMap<string, Role>, result: ModuleParams): void {
  const written = new WeakSet<EsNode>();
  const uses: Frame[] = [];
  const reassigned = new Map<string, EsNode>();
  const requireName = [...params].find(([, role]) => role === '__webpack_require__')?.[0] ?? null;
  const body = fn.body as EsNode;
  const top = new Set(topExpressions(bodyStatements(body)));
  const reassign = (name: string, node: EsNode) => {
    if (!reassigned.has(name)) reassigned.set(name, node);
  };
  // `e = t.exports = …` at the module's top level points exports at the new object: followed.
  const rebinds = (node: EsNode) => {
    const right = node.right as EsNode;
    const target = right.type === 'AssignmentExpression' ? (right.left as EsNode) : null;
    const object = target?.type === 'MemberExpression' ? (target.object as EsNode) : null;
    return (
      top.has(node) &&
      params.get((node.left as EsNode).name as string) === 'exports' &&
      object?.type === 'Identifier' &&
      params.get(object.name as string) === 'module' &&
      memberName(target!) === 'exports'
    );
  };
  const stack: Frame[] = [{ node: body, key: 'body', up: null, live: new Set(params.keys()) }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node } = frame;
    let live = frame.live;
    const parent = frame.up?.node ?? null;
    if (node.type === 'Identifier') {
      const name = node.name as string;
      if (!live.has(name)) continue;
      if (parent !== null && PATTERN_PARENTS.test(parent.type)) reassign(name, node);
      else if (parent?.type === 'Property' && frame.up?.up?.node.type === 'ObjectPattern') reassign(name, node);
      else uses.push(frame);
      continue;
    }
    if (node !== body && FUNCTION.test(node.type)) live = without(live, innerFunctionNames(node));
    else if (node !== fn.body) {
      const names = blockNames(node);
      if (names.size > 0) live = without(live, names);
    }
    if (live.size === 0) continue;
    if (node.type === 'AssignmentExpression' || node.type === 'UpdateExpression') {
      const target = (node.type === 'AssignmentExpression' ? node.left : node.argument) as EsNode;
      written.add(target);
      if (
        target.type === 'Identifier' &&
        live.has(target.name as string) &&
        !(node.type === 'AssignmentExpression' && rebinds(node))
      )
        reassign(target.name as string, node);
    } else if (node.type === 'UnaryExpression' && node.operator === 'delete') written.add(node.argument as EsNode);
    else if (node.type === 'ForInStatement' || node.type === 'ForOfStatement') written.add(node.left as EsNode);
    else if (node.type === 'VariableDeclarator') {
      // A var of the module's own scope (inner scopes dropped the name already) with a value rebinds it.
      const names = new Set<string>();
      patternNames(node.id as EsNode, names);
      const loop = frame.up?.up?.node;
      const looped = loop?.type === 'ForInStatement' || loop?.type === 'ForOfStatement';
      for (const name of names) if (live.has(name) && (node.init || looped)) reassign(name, node);
    } else if (node.type === 'FunctionDeclaration' && node.id && frame.live.has((node.id as EsNode).name as string))
      reassign((node.id as EsNode).name as string, node);
    const children: Frame[] = [];
    for (const key in node) {
      if (key === 'loc' || key === 'range') continue;
      // Names that are not references: a member's or property's key, labels, declared names.
      if (key === 'property' && node.type === 'MemberExpression' && !node.computed) continue;
      if (key === 'key' && !node.computed) continue;
      if (key === 'label' || node.type === 'MetaProperty') continue;
      if (key === 'id' && node.type !== 'VariableDeclarator') continue;
      if (key === 'id' && node.type === 'VariableDeclarator' && (node.id as EsNode).type === 'Identifier') continue;
      const value = node[key];
      const items = Array.isArray(value) ? value : [value];
      for (const item of items)
        if (item !== null && typeof item === 'object' && typeof (item as EsNode).type === 'string')
          children.push({ node: item as EsNode, key, up: frame, live });
    }
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
  for (const [, node] of reassigned) result.unfollowed.push({ node, why: 'reassigned' });
  for (const use of uses) {
    const name = use.node.name as string;
    const role = params.get(name)!;
    if (reassigned.has(name)) continue;
    result.aliases.set(use.node, role);
    const parent = use.up?.node ?? null;
    let why: Unfollowed['why'] | null = null;
    if (parent?.type === 'AssignmentExpression' && use.key === 'left') why = null;
    else if (role === 'exports') why = objectUse(use.node, parent, use.key, (n) => written.has(n), requireName);
    else if (role === 'module') {
      if (parent?.type !== 'MemberExpression' || use.key !== 'object') why = 'passed-on';
      else if (memberName(parent) === null) why = written.has(parent) ? 'passed-on' : null;
      else if (memberName(parent) === 'exports') {
        const holder = use.up!;
        const grand = holder.up?.node ?? null;
        const assigned = grand?.type === 'AssignmentExpression' && holder.key === 'left';
        why = assigned ? null : objectUse(parent, grand, holder.key, (n) => written.has(n), requireName);
      }
    }
    if (why !== null) result.unfollowed.push({ node: use.node, why });
  }
}

function without(live: ReadonlySet<string>, names: ReadonlySet<string>): ReadonlySet<string> {
  if (![...names].some((n) => live.has(n))) return live;
  return new Set([...live].filter((n) => !names.has(n)));
}

/** {@link memberPath} with a chain rooted at an alias named for what it is (`e.add`: `exports.add`). */
export function aliasedPath(aliases: ReadonlyMap<EsNode, Role>): (node: unknown) => string | null {
  if (aliases.size === 0) return memberPath;
  return (node) => {
    const path = memberPath(node);
    if (path === null) return null;
    let root = node as EsNode;
    while (root.type === 'MemberExpression') root = root.object as EsNode;
    const alias = aliases.get(root);
    return alias === undefined ? path : alias + path.slice(String(root.name).length);
  };
}
