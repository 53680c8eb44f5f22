import { ANNOTATIONS, isObject, mapChildren } from './walk.js';
import { canonicalJson } from '@rea/evidence';
import { jsonTypeOf, typesOf } from './jsonTypes.js';
import type { JsonSchema } from './types.js';

/** True when a JSON value belongs to the JSON Schema type `name` (an integer is also a number). */
function hasType(value: unknown, name: string): boolean {
  const actual = jsonTypeOf(value);
  return actual === name || (name === 'number' && actual === 'integer');
}

/** True when the node's `type` admits every value its `const` or `enum` allows, so it adds nothing. */
function typeImpliedByValues(node: JsonSchema): boolean {
  const names = declaredTypes(node);
  if (names === null) return false;
  const values = 'const' in node ? [node['const']] : Array.isArray(node['enum']) ? node['enum'] : null;
  if (values === null) return false;
  return values.every((value) => names.some((name) => hasType(value, name)));
}

/** The type names of a `type` keyword, or null when it is absent or malformed. */
function declaredTypes(node: JsonSchema): string[] | null {
  const declared = node['type'];
  const names = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : null;
  return names !== null && names.every((name) => typeof name === 'string') ? (names as string[]) : null;
}

/**
 * True when every alternative of the node's `anyOf` or `oneOf` admits only types its own `type`
 * already admits: a value passing the combinator has one of those types, so the `type` adds nothing.
 */
function typeImpliedByAlternatives(node: JsonSchema): boolean {
  const names = declaredTypes(node);
  const alternatives = Array.isArray(node['anyOf']) ? node['anyOf'] : node['oneOf'];
  if (names === null || !Array.isArray(alternatives) || alternatives.length === 0) return false;
  return alternatives.every((alternative) => {
    const types = typesOf(alternative);
    return (
      types !== null &&
      types.every((type) => names.some((name) => name === type || (name === 'number' && type === 'integer')))
    );
  });
}

/** The values of an alternative that is nothing but a `const` or an `enum`, else null. */
function valuesOnly(node: unknown): unknown[] | null {
  if (!isObject(node)) return null;
  const keys = Object.keys(node);
  if (keys.length !== 1) return null;
  if (keys[0] === 'const') return [node['const']];
  return keys[0] === 'enum' && Array.isArray(node['enum']) ? node['enum'] : null;
}

/**
 * An `anyOf` whose alternatives are all bare `const`/`enum` accepts exactly the union of their values:
 * it becomes one `enum` (duplicates removed) when the node has no `const` or `enum` of its own.
 */
function mergeValueAlternatives(node: JsonSchema): void {
  const alternatives = node['anyOf'];
  if (!Array.isArray(alternatives) || alternatives.length === 0 || 'const' in node || 'enum' in node) return;
  const values: unknown[] = [];
  const seen = new Set<string>();
  for (const alternative of alternatives) {
    const own = valuesOnly(alternative);
    if (own === null) return;
    for (const value of own) {
      const key = canonicalJson(value);
      if (!seen.has(key)) values.push(value);
      seen.add(key);
    }
  }
  delete node['anyOf'];
  node['enum'] = values;
}

/**
 * A closed object (`additionalProperties: false`, no `patternProperties`) has its keys drawn from its
 * properties, so a count of keys says which are present:
 *
 * - all properties required: at least as many keys as properties means every one of them, so
 *   `minProperties` (the property count) states the `required` list exactly; with no properties at
 *   all the object is `maxProperties: 0`;
 * - all but one property `o` required: at least `required.length` keys, and one more when `o` is
 *   present (`dependentSchemas: {o: {minProperties: n + 1}}`), means every required key. Used only
 *   when it is shorter than the list it replaces.
 */
function requiredByCount(node: JsonSchema): void {
  if (node['additionalProperties'] !== false || 'patternProperties' in node || 'unevaluatedProperties' in node) return;
  if ('minProperties' in node || 'maxProperties' in node || 'dependentSchemas' in node) return;
  const properties = node['properties'] ?? {};
  const required = node['required'] ?? [];
  if (!isObject(properties) || !Array.isArray(required)) return;
  const names = Object.keys(properties);
  const requiredSet = new Set(required);
  if (requiredSet.size !== required.length) return;
  if (!required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name))) return;
  const optional = names.filter((name) => !requiredSet.has(name));
  if (optional.length === 0) {
    delete node['required'];
    if (names.length > 0) {
      node['minProperties'] = names.length;
      return;
    }
    delete node['properties'];
    delete node['additionalProperties'];
    node['maxProperties'] = 0;
    return;
  }
  if (optional.length !== 1) return;
  const counted = {
    minProperties: required.length,
    dependentSchemas: { [optional[0]!]: { minProperties: required.length + 1 } },
  };
  if (serialized(counted) >= serialized({ required })) return;
  delete node['required'];
  Object.assign(node, counted);
}

/** The serialized bytes of the keywords in `fragment`, without its braces. */
function serialized(fragment: JsonSchema): number {
  return Buffer.byteLength(JSON.stringify(fragment), 'utf8') - 2;
}

/**
 * The terse form of a schema DAG for presentation to validators rather than to a model: every
 * annotation (description, title, examples, default, deprecated, `$comment`) is dropped, an `anyOf`
 * of bare `const`/`enum` alternatives becomes one `enum`, a `type` already implied by the node's
 * `const`, `enum` or by every `anyOf`/`oneOf` alternative is dropped, a closed object states which
 * properties are required by counting keys where that is exact and shorter (`requiredByCount`), and
 * `additionalProperties` that accepts anything (`{}` or `true`) is dropped. It accepts exactly the
 * values the input schema accepts. Shared subtrees stay shared.
 */
export function terseSchema(root: JsonSchema): JsonSchema {
  const memo = new Map<object, unknown>();
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node;
    const known = memo.get(node);
    if (known !== undefined) return known;
    const out = mapChildren(node, visit);
    for (const key of ANNOTATIONS) delete out[key];
    mergeValueAlternatives(out);
    if (typeImpliedByValues(out) || typeImpliedByAlternatives(out)) delete out['type'];
    requiredByCount(out);
    const extra = out['additionalProperties'];
    if ((extra === true || (isObject(extra) && Object.keys(extra).length === 0)) && !('unevaluatedProperties' in out)) {
      delete out['additionalProperties'];
    }
    memo.set(node, out);
    return out;
  };
  return visit(root) as JsonSchema;
}
