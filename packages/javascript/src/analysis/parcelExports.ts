// The exports of Parcel's hoisted modules. Parcel renames every export of a hoisted asset to
// `$<asset hash>$export$<hash of the name>`, so the name is gone from the declaration; what a bundle
// exports it still names, binding each name to the hoisted declaration: `$parcel$export(module.exports,
// "run", () => $774f…$export$889e…)` in CommonJS output, `export { $774f…$export$889e… as run }` in ES
// output. Each such name is an export of the hoisted module that declares the bound name, with the
// kind and arity of the declaration.
import type { EsNode } from '../engine/parser.js';
import type { RecoveredModule } from './bundles.js';
import { shapeOf } from './facts.js';
import { scopeOf } from './parcel.js';
import { memberPath, stringValue } from './walk.js';

/** The declarations of the bundle's scope by name (functions, classes, variables) and their values. */
function declared(statements: EsNode[]): Map<string, { at: number; value: EsNode | null }> {
  const found = new Map<string, { at: number; value: EsNode | null }>();
  for (let statement of statements) {
    if (statement.type === 'ExportNamedDeclaration' && statement.declaration)
      statement = statement.declaration as EsNode;
    if (statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') {
      const id = statement.id as EsNode | null;
      if (id) found.set(id.name as string, { at: statement.start ?? 0, value: statement });
    } else if (statement.type === 'VariableDeclaration') {
      for (const d of statement.declarations as EsNode[]) {
        const id = d.id as EsNode;
        if (id.type === 'Identifier')
          found.set(id.name as string, { at: d.start ?? 0, value: d.init as EsNode | null });
      }
    }
  }
  return found;
}

/** `$parcel$export(module.exports, "name", () => local)`: [name, local], else null. */
function parcelExport(node: EsNode): [string, string] | null {
  if (node.type !== 'CallExpression' || (node.callee as EsNode).name !== '$parcel$export') return null;
  const [target, name, getter] = node.arguments as EsNode[];
  const exported = stringValue(name);
  if (memberPath(target) !== 'module.exports' || exported === null || getter?.type !== 'ArrowFunctionExpression')
    return null;
  const body = getter.body as EsNode;
  return body.type === 'Identifier' ? [exported, body.name as string] : null;
}

/** Every [exported name, local name] pair the bundle's own scope exports. */
function bundleExports(statements: EsNode[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (const statement of statements) {
    if (statement.type === 'ExportNamedDeclaration' && !statement.source) {
      for (const s of (statement.specifiers as EsNode[]) ?? []) {
        const exported = s.exported as EsNode;
        pairs.push([String(exported.name ?? exported.value), (s.local as EsNode).name as string]);
      }
    } else if (statement.type === 'ExpressionStatement') {
      const expression = statement.expression as EsNode;
      const calls = expression.type === 'SequenceExpression' ? (expression.expressions as EsNode[]) : [expression];
      for (const call of calls) {
        const pair = parcelExport(call);
        if (pair !== null) pairs.push(pair);
      }
    }
  }
  return pairs;
}

/**
 * Gives the hoisted modules of a Parcel bundle (those without a function of their own, found by
 * `holder`) the names the bundle exports from their declarations.
 */
export function assignParcelExports(program: EsNode, holder: (offset: number) => RecoveredModule | null): void {
  const statements = scopeOf(program);
  const declarations = declared(statements);
  for (const [name, local] of bundleExports(statements)) {
    const found = declarations.get(local);
    const module = found ? holder(found.at) : null;
    if (!found || !module || module.node !== null) continue;
    const shape = shapeOf(name, 'esm', found.value);
    module.exports ??= [];
    if (!module.exports.some((e) => e.name === shape.name)) module.exports.push(shape);
  }
}
