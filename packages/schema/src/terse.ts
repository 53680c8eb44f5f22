import { ANNOTATIONS, isObject, mapChildren } from './walk.js';
import { jsonTypeOf } from './jsonTypes.js';
import type { JsonSchema } from './types.js';

/** True when a JSON value belongs to the JSON Schema type `name` (an integer is also a number). */
function hasType(value: unknown, name: string): boolean {
  const actual = jsonTypeOf(value);
  return actual === name || (name === 'number' && actual === 'integer');
}

/** True when the node's `type` admits every value its `const` or `enum` allows, so it adds nothing. */
function typeImpliedByValues(node: JsonSchema): boolean {
  const declared = node['type'];
  const names = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : null;
  if (names === null || !names.every((name) => typeof name === 'string')) return false;
  const values = 'const' in node ? [node['const']] : Array.isArray(node['enum']) ? node['enum'] : null;
  if (values === null) return false;
  return values.every((value) => (names as string[]).some((name) => hasType(value, name)));
}

/**
 * The terse form of a schema DAG for presentation to validators rather than to a model: every
 * annotation (description, title, examples, default, deprecated, `$comment`) is dropped, a `type`
 * already implied by the node's `const` or `enum` is dropped, and `additionalProperties` that accepts
 * anything (`{}` or `true`) is dropped. It accepts exactly the values the input schema accepts.
 * Shared subtrees stay shared.
 */
export function terseSchema(root: JsonSchema): JsonSchema {
  const memo = new Map<object, unknown>();
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node;
    const known = memo.get(node);
    if (known !== undefined) return known;
    const out = mapChildren(node, visit);
    for (const key of ANNOTATIONS) delete out[key];
    if (typeImpliedByValues(out)) delete out['type'];
    const extra = out['additionalProperties'];
    if ((extra === true || (isObject(extra) && Object.keys(extra).length === 0)) && !('unevaluatedProperties' in out)) {
      delete out['additionalProperties'];
    }
    memo.set(node, out);
    return out;
  };
  return visit(root) as JsonSchema;
}
