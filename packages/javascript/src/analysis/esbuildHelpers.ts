// esbuild's module wrappers once minified. Unminified, each wrapper is keyed by its module's path
// (`__commonJS({ "src/x.js"(exports, module) { … } })`); `--minify` drops the key and renames the helpers:
//   var p=(t,e)=>()=>{try{return e||t((e={exports:{}}).exports,e),e.exports}catch(c){throw e=0,c}};
//   var f=(t,e,c)=>()=>{if(c)throw c[0];try{return t&&(e=t(t=0)),e}catch(r){throw c=[r],r}};
//   var o=p(n=>{n.add=…}), u=f(()=>{…});
// (older esbuild releases write the same without try/catch). The helpers are told by what their inner
// function does with their parameters, not by their names; each call of one with a function is a module.
import type { EsNode } from '../engine/parser.js';
import { walk } from './walk.js';

/** Which of esbuild's wrappers a helper builds: `__commonJS` (a module object) or `__esm` (a lazy init). */
export type WrapperKind = 'commonjs' | 'esm';

const isFunction = (node: EsNode | null | undefined): node is EsNode =>
  node?.type === 'FunctionExpression' || node?.type === 'ArrowFunctionExpression';

const named = (node: EsNode | undefined, name: string) => node?.type === 'Identifier' && node.name === name;

/** `name = { exports: {} }`. */
function isModuleObject(node: EsNode, name: string): boolean {
  if (node.type !== 'AssignmentExpression' || !named(node.left as EsNode, name)) return false;
  const right = node.right as EsNode;
  const properties = right.type === 'ObjectExpression' ? (right.properties as EsNode[]) : [];
  const only = properties.length === 1 ? properties[0]! : null;
  const value = only?.value as EsNode | undefined;
  return (
    only?.type === 'Property' &&
    !only.computed &&
    named(only.key as EsNode, 'exports') &&
    value?.type === 'ObjectExpression' &&
    (value.properties as EsNode[]).length === 0
  );
}

/** `result = init(init = 0)`. */
function isLazyInit(node: EsNode, init: string, result: string): boolean {
  if (node.type !== 'AssignmentExpression' || !named(node.left as EsNode, result)) return false;
  const call = node.right as EsNode;
  const args = call.type === 'CallExpression' ? (call.arguments as EsNode[]) : [];
  const reset = args[0];
  return (
    named(call.callee as EsNode, init) &&
    args.length === 1 &&
    reset?.type === 'AssignmentExpression' &&
    named(reset.left as EsNode, init) &&
    (reset.right as EsNode).type === 'Literal' &&
    (reset.right as EsNode).value === 0
  );
}

/**
 * The wrapper a helper function builds, or null: `(cb, mod) => () => …` whose inner function calls `cb`
 * with `(mod = { exports: {} }).exports` (`__commonJS`), or `(fn, res, …) => () => …` whose inner
 * function runs `res = fn(fn = 0)` (`__esm`).
 */
export function wrapperHelper(fn: EsNode): WrapperKind | null {
  if (!isFunction(fn)) return null;
  const params = fn.params as EsNode[];
  if (params.length < 2 || !params.every((p) => p.type === 'Identifier')) return null;
  const [first, second] = params.map((p) => p.name as string) as [string, string];
  let inner = fn.body as EsNode;
  if (inner.type === 'BlockStatement') {
    const statements = inner.body as EsNode[];
    const only = statements.length === 1 && statements[0]!.type === 'ReturnStatement' ? statements[0]! : null;
    inner = only?.argument as EsNode;
  }
  if (!isFunction(inner) || (inner.params as EsNode[]).length !== 0) return null;
  let object = false;
  let called = false;
  let lazy = false;
  walk(inner, (node) => {
    if (isModuleObject(node, second)) object = true;
    else if (node.type === 'CallExpression' && named(node.callee as EsNode, first)) called = true;
    if (isLazyInit(node, first, second)) lazy = true;
    return true;
  });
  if (object && called && params.length === 2) return 'commonjs';
  return lazy ? 'esm' : null;
}
