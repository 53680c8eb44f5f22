// Parcel 2's runtime shapes. A scope-hoisted build registers the modules other code may require at run
// time with its runtime — `parcelRegister("id", function (module, exports) { … })`, the register being
// `parcelRequire.register` (`(0, e.register)("id", …)` once minified) — and requires them by id through
// the runtime, `parcelRequire("id")`, which each bundle reads from its global `parcelRequire<hash>`; a
// bundle may require a module registered by another. Exports are defined with getters on
// `module.exports` (`$parcel$export(module.exports, "name", () => x)` or `Object.defineProperty`). A
// build without scope hoisting uses a browser-pack-like table instead (see browserify.ts).
import type { EsNode } from '../engine/parser.js';
import type { ExportShape } from '../schemas.js';
import type { RecoveredEdge, RecoveredModule } from './bundles.js';
import { memberPath, stringValue, walk } from './walk.js';

/** Parcel's runtime global, `parcelRequire` and a hash of the project. */
export const PARCEL_MARKER = /\bparcelRequire[0-9a-f]*\b/;
const GLOBAL = /^parcelRequire[0-9a-f]*$/;

const isFunction = (node: EsNode | undefined): node is EsNode =>
  node !== undefined && (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression');

/** The property a member expression reads (`register`, `parcelRequire94c2`), or null. */
function propertyOf(node: EsNode | null | undefined): { object: EsNode; name: string } | null {
  if (node?.type !== 'MemberExpression') return null;
  const property = node.property as EsNode;
  const name = node.computed ? stringValue(property) : (property.name as string);
  return name === null ? null : { object: node.object as EsNode, name };
}

/** What a registered module's factory says it exports: `$parcel$export(module.exports, "name", …)` or defineProperty. */
function exportsOf(fn: EsNode): ExportShape[] {
  const [module] = fn.params as EsNode[];
  if (module?.type !== 'Identifier') return [];
  const target = `${module.name as string}.exports`;
  const found: ExportShape[] = [];
  walk(fn.body as EsNode, (node) => {
    if (node !== fn.body && isFunction(node)) return false;
    if (node.type !== 'CallExpression') return true;
    const args = node.arguments as EsNode[];
    const callee = memberPath(node.callee);
    const defines = callee === 'Object.defineProperty' || (callee !== null && !callee.includes('.'));
    const name = stringValue(args[1]);
    if (defines && args.length >= 3 && memberPath(args[0]) === target && name !== null) {
      found.push({ name, system: 'esm', value_kind: 'unknown', arity: null });
    }
    return true;
  });
  return found;
}

/** The modules a Parcel bundle registers, and its runtime requires by id (edges, possibly to another bundle). */
export function parcelRegistered(
  program: EsNode,
  every?: () => void,
): { modules: RecoveredModule[]; edges: RecoveredEdge[] } {
  const requires = new Set<string>(['parcelRequire']);
  const registers = new Set<string>(['parcelRegister']);
  const modules: RecoveredModule[] = [];
  const edges: RecoveredEdge[] = [];
  const bind = (id: EsNode | null | undefined, value: EsNode | null | undefined) => {
    if (id?.type !== 'Identifier') return;
    const read = propertyOf(value);
    if (read !== null && GLOBAL.test(read.name)) requires.add(id.name as string);
    if (read?.name === 'register' && read.object.type === 'Identifier' && requires.has(read.object.name as string)) {
      registers.add(id.name as string);
    }
  };
  const isRegister = (callee: EsNode): boolean => {
    if (callee.type === 'Identifier') return registers.has(callee.name as string);
    const last = callee.type === 'SequenceExpression' ? (callee.expressions as EsNode[]).at(-1) : callee;
    const read = propertyOf(last);
    return read?.name === 'register' && read.object.type === 'Identifier' && requires.has(read.object.name as string);
  };
  walk(
    program,
    (node) => {
      if (node.type === 'VariableDeclarator') bind(node.id as EsNode, node.init as EsNode | null);
      else if (node.type === 'AssignmentExpression') bind(node.left as EsNode, node.right as EsNode);
      else if (node.type === 'CallExpression') {
        const callee = node.callee as EsNode;
        const args = node.arguments as EsNode[];
        const id = stringValue(args[0]);
        if (id === null) return true;
        if (
          args.length === 2 &&
          isFunction(args[1]) &&
          (args[1].params as EsNode[]).length <= 2 &&
          isRegister(callee)
        ) {
          const fn = args[1];
          modules.push({
            bundler: 'parcel',
            moduleId: id,
            start: fn.start ?? 0,
            end: fn.end ?? 0,
            startLine: fn.loc!.start.line,
            endLine: fn.loc!.end.line,
            requireName: null,
            node: fn,
            structure: null,
            exports: exportsOf(fn),
          });
        } else if (args.length === 1 && callee.type === 'Identifier' && requires.has(callee.name as string)) {
          const { line, column } = node.loc!.start;
          edges.push({
            offset: node.start ?? 0,
            line,
            column,
            toModuleId: id,
            specifier: `${callee.name as string}(${id})`,
            crossFile: true,
          });
        }
      }
      return true;
    },
    every,
  );
  return { modules, edges };
}

const HOISTED = /^\$([0-9a-f]{16})\$/;

/** The statements of the bundle's scope: the body of its wrapping `(() => { … })()`, else the program's. */
export function scopeOf(program: EsNode): EsNode[] {
  const body = program.body as EsNode[];
  const [only] = body.filter((s) => s.type !== 'EmptyStatement');
  const call = only?.type === 'ExpressionStatement' ? (only.expression as EsNode) : null;
  const fn = call?.type === 'CallExpression' ? (call.callee as EsNode) : null;
  return isFunction(fn ?? undefined) && (fn!.body as EsNode).type === 'BlockStatement'
    ? ((fn!.body as EsNode).body as EsNode[])
    : body;
}

/** The names a top-level statement declares or assigns. */
function namesOf(statement: EsNode): string[] {
  if (statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') {
    const id = statement.id as EsNode | null;
    return id ? [id.name as string] : [];
  }
  if (statement.type === 'VariableDeclaration') {
    return (statement.declarations as EsNode[]).map((d) => (d.id as EsNode).name).filter((n) => typeof n === 'string');
  }
  const expression = statement.type === 'ExpressionStatement' ? (statement.expression as EsNode) : null;
  const left = expression?.type === 'AssignmentExpression' ? (expression.left as EsNode) : null;
  return left?.type === 'Identifier' ? [left.name as string] : [];
}

/**
 * The hoisted modules of an unminified scope-hoisted Parcel bundle: Parcel prefixes every top-level
 * name of an asset with the asset's hash (`$38b55383c2a07bfb$export$…`, `$…$var$…`), so the
 * statements declaring one hash's names span that module, its id the hash.
 */
export function parcelHoisted(program: EsNode): RecoveredModule[] {
  const spans = new Map<string, { first: EsNode; last: EsNode }>();
  for (const statement of scopeOf(program)) {
    for (const name of namesOf(statement)) {
      const hash = HOISTED.exec(name)?.[1];
      if (hash === undefined) continue;
      const span = spans.get(hash);
      if (span === undefined) spans.set(hash, { first: statement, last: statement });
      else span.last = statement;
    }
  }
  return [...spans].map(([hash, { first, last }]) => ({
    bundler: 'parcel' as const,
    moduleId: hash,
    start: first.start ?? 0,
    end: last.end ?? 0,
    startLine: first.loc!.start.line,
    endLine: last.loc!.end.line,
    requireName: null,
    node: null,
    structure: null,
  }));
}
