import { canonicalJson } from '@rea/evidence';
import { isObject, mapChildren } from './walk.js';
import type { JsonSchema } from './types.js';

/** The result field of an Evidence record: the one part of the record that differs between tools. */
const RESULT_FIELD = 'normalized_result';

/**
 * Keywords that refine a value within its type (lengths, bounds, patterns, formats). The presented
 * envelope leaves them to the server's canonical validation.
 */
const REFINEMENTS = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);

/** The envelope fields of a record schema (every root property except the result) as canonical JSON. */
function envelopeOf(root: JsonSchema): Map<string, string> | null {
  const properties = root['properties'];
  if (root['type'] !== 'object' || root['additionalProperties'] !== false || !isObject(properties)) return null;
  if (!(RESULT_FIELD in properties)) return null;
  const fields = new Map<string, string>();
  for (const [name, child] of Object.entries(properties))
    if (name !== RESULT_FIELD) fields.set(name, canonicalJson(child));
  return fields;
}

/** True when `root` has exactly the envelope fields, required list and closedness of `reference`. */
export function hasEnvelopeOf(root: JsonSchema, reference: JsonSchema): boolean {
  const own = envelopeOf(root);
  const expected = envelopeOf(reference);
  if (own === null || expected === null || own.size !== expected.size) return false;
  for (const [name, json] of expected) if (own.get(name) !== json) return false;
  return canonicalJson(root['required'] ?? []) === canonicalJson(reference['required'] ?? []);
}

/** A subschema by its JSON structure only: value refinements and nested closedness dropped. */
function structural(node: unknown): unknown {
  if (!isObject(node)) return node;
  const out = mapChildren(node, structural);
  for (const key of REFINEMENTS) delete out[key];
  if (out['additionalProperties'] === false) delete out['additionalProperties'];
  return out;
}

/**
 * The presented form of an Evidence record's output schema: the root stays closed with its required
 * fields and `normalized_result` keeps its complete schema, while every envelope field is shown by
 * its JSON structure (names, types, `enum`, `const`, nested required fields) without value
 * refinements (lengths, patterns, bounds) or the closedness of nested envelope objects. It accepts
 * every record the complete schema accepts; the server validates each record against the canonical
 * schema before sending it.
 */
export function presentEnvelope(root: JsonSchema): JsonSchema {
  const properties = root['properties'] as JsonSchema;
  const presented: JsonSchema = {};
  for (const [name, child] of Object.entries(properties)) {
    presented[name] = name === RESULT_FIELD ? child : structural(child);
  }
  return { ...root, properties: presented };
}
