import { ANNOTATIONS, isObject } from './walk.js';

/** Every JSON value type, in the order advertised for an unconstrained value. */
export const ALL_JSON_TYPES = ['object', 'array', 'string', 'number', 'boolean', 'null'] as const;

const ORDER = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'];

/** Sorts and de-duplicates type names; `integer` is dropped when `number` is present (it is a subset). */
export function normalizeTypes(types: Iterable<string>): string[] {
  const set = new Set(types);
  if (set.has('number')) set.delete('integer');
  return [...set].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
}

/** A `type` keyword value: a single name, or an array of several. */
export function typeKeyword(types: readonly string[]): string | string[] {
  return types.length === 1 ? types[0]! : [...types];
}

/** True when a schema has no validation keyword at all (only annotations): it accepts any JSON. */
export function isUnconstrained(node: unknown): boolean {
  if (node === true) return true;
  if (!isObject(node)) return false;
  return Object.keys(node).every((key) => ANNOTATIONS.has(key));
}

/**
 * The JSON types a schema can accept, or null when that cannot be told from the schema itself
 * (`not`, conditionals, references). `const` and `enum` contribute the types of their values.
 */
export function typesOf(node: unknown): string[] | null {
  if (node === true || isUnconstrained(node)) return [...ALL_JSON_TYPES];
  if (node === false || !isObject(node)) return null;
  const declared = node['type'];
  if (typeof declared === 'string') return [declared];
  if (Array.isArray(declared)) return normalizeTypes(declared.filter((t): t is string => typeof t === 'string'));
  if ('const' in node) return [jsonTypeOf(node['const'])];
  if (Array.isArray(node['enum'])) return normalizeTypes(node['enum'].map(jsonTypeOf));
  const alternatives = node['anyOf'] ?? node['oneOf'];
  if (Array.isArray(alternatives)) {
    const all: string[] = [];
    for (const alternative of alternatives) {
      const types = typesOf(alternative);
      if (types === null) return null;
      all.push(...types);
    }
    return normalizeTypes(all);
  }
  return null;
}

/** The JSON Schema type name of a JSON value. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
