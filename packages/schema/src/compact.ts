import { ReaError } from '@rea/evidence';
import { ANNOTATIONS, isObject, mapChildren, materialize, serializedSize } from './walk.js';
import { ALL_JSON_TYPES, typeKeyword, typesOf } from './jsonTypes.js';
import { COMPACT_INPUT_SCHEMA_BUDGET } from './types.js';
import type { JsonSchema } from './types.js';

/** Drops annotations from every nested schema; the root keeps its description only. Sharing kept. */
export function stripAnnotations(root: JsonSchema): JsonSchema {
  const memo = new Map<object, unknown>();
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node;
    const known = memo.get(node);
    if (known !== undefined) return known;
    const out = mapChildren(node, visit);
    for (const key of ANNOTATIONS) delete out[key];
    memo.set(node, out);
    return out;
  };
  const stripped = visit(root) as JsonSchema;
  const copy: JsonSchema = { ...stripped };
  if (typeof root['description'] === 'string') return { description: root['description'], ...copy };
  return copy;
}

const REDUCED_NOTE =
  'Reduced advertisement: nested validation detail is elided here and enforced by the server, which answers a malformed call with a typed invalid_request error.';

/**
 * The reduced presentation of a schema node: reference-resolved types (with union alternatives),
 * property names, and items, down to `depth` more levels; every other keyword is dropped, so it
 * accepts at least what the node accepts.
 */
function reduceNode(node: unknown, depth: number, memo: Map<unknown, Map<number, unknown>>): unknown {
  let perDepth = memo.get(node);
  if (perDepth === undefined) memo.set(node, (perDepth = new Map()));
  const known = perDepth.get(depth);
  if (known !== undefined) return known;
  const types = typesOf(node) ?? [...ALL_JSON_TYPES];
  const out: JsonSchema = { type: typeKeyword(types) };
  if (isObject(node) && depth > 0) {
    const alternatives = node['anyOf'] ?? node['oneOf'];
    if (Array.isArray(alternatives)) {
      const reduced = alternatives.map((alternative) => reduceNode(alternative, depth, memo));
      const distinct = [...new Map(reduced.map((r) => [JSON.stringify(r), r])).values()];
      if (distinct.some((r) => isObject(r) && Object.keys(r).length > 1)) out['anyOf'] = distinct;
    }
    if (isObject(node['properties']) && types.includes('object')) {
      const properties: JsonSchema = {};
      for (const [name, child] of Object.entries(node['properties'])) {
        properties[name] = reduceNode(child, depth - 1, memo);
      }
      out['properties'] = properties;
    }
    if (isObject(node['items']) && types.includes('array')) out['items'] = reduceNode(node['items'], depth - 1, memo);
  }
  perDepth.set(depth, out);
  return out;
}

function reducedRoot(root: JsonSchema, depth: number, guidance: boolean): JsonSchema {
  const memo = new Map<unknown, Map<number, unknown>>();
  const properties: JsonSchema = {};
  for (const [name, child] of Object.entries(isObject(root['properties']) ? root['properties'] : {})) {
    const reduced = reduceNode(child, depth, memo) as JsonSchema;
    const description = isObject(child) ? child['description'] : undefined;
    properties[name] = guidance && typeof description === 'string' ? { description, ...reduced } : reduced;
  }
  const own = typeof root['description'] === 'string' ? `${root['description']} ` : '';
  return {
    type: 'object',
    description: `${own}${REDUCED_NOTE}`,
    properties,
    ...(Array.isArray(root['required']) ? { required: root['required'] } : {}),
    ...(isObject(root['dependentRequired']) ? { dependentRequired: root['dependentRequired'] } : {}),
    ...(root['additionalProperties'] === false ? { additionalProperties: false } : {}),
  };
}

/**
 * The compact presentation of a portable (normalized, recursion-free) input schema DAG: annotations
 * dropped below the root, every reference inlined, at most `budget` serialized bytes. Sizes are
 * measured on the DAG before anything is expanded, so an oversized expansion is never allocated.
 * When the validation structure alone exceeds the budget, the reduced form is returned (property
 * names and types to the deepest level that fits, first-level descriptions, the root's required
 * fields) with `reduced: true`. A schema whose reduced form cannot fit either is refused with
 * `invalid_request` (`details.reason: "schema-too-large"`).
 */
export function compactInput(
  root: JsonSchema,
  budget: number = COMPACT_INPUT_SCHEMA_BUDGET,
): { schema: JsonSchema; reduced: boolean } {
  const stripped = stripAnnotations(root);
  const sizes = new WeakMap<object, number>();
  if (serializedSize(stripped, sizes) <= budget) return { schema: materialize(stripped), reduced: false };
  for (const guidance of [true, false]) {
    for (let depth = 8; depth >= 0; depth -= 1) {
      const reduced = reducedRoot(root, depth, guidance);
      if (serializedSize(reduced) <= budget) return { schema: materialize(reduced), reduced: true };
    }
  }
  throw new ReaError('invalid_request', `The input schema does not fit ${budget} bytes even in reduced form.`, {
    details: { reason: 'schema-too-large', budget, size: serializedSize(stripped, sizes) },
  });
}
