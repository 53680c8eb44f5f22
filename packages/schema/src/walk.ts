import type { JsonSchema } from './types.js';

/** Keywords whose value is one subschema. */
const SINGLE = [
  'items',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentSchema',
] as const;
/** Keywords whose value is a map of name to subschema. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
/** Keywords whose value is an array of subschemas. */
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/** Annotation keywords: they describe, they never validate. */
export const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', 'deprecated', '$comment']);

/** True for a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where a child schema sits under its parent: the keyword and, for maps and lists, the key. */
export interface ChildSlot {
  keyword: string;
  key?: string;
}

/** Calls `visit` for every direct subschema of `node` (schema positions only, never data). */
export function forEachChild(node: JsonSchema, visit: (child: unknown, slot: ChildSlot) => void): void {
  for (const keyword of SINGLE) if (keyword in node) visit(node[keyword], { keyword });
  for (const keyword of MAP) {
    const map = node[keyword];
    if (isObject(map)) for (const key of Object.keys(map)) visit(map[key], { keyword, key });
  }
  for (const keyword of LIST) {
    const list = node[keyword];
    if (Array.isArray(list)) list.forEach((child, index) => visit(child, { keyword, key: String(index) }));
  }
}

/**
 * A shallow copy of `node` with every direct subschema replaced by `map(child)`. Data keywords
 * (`const`, `enum`, `required`, `examples`, …) are kept as they are. Key order is preserved.
 */
export function mapChildren(node: JsonSchema, map: (child: unknown, slot: ChildSlot) => unknown): JsonSchema {
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if ((SINGLE as readonly string[]).includes(keyword)) out[keyword] = map(value, { keyword });
    else if ((MAP as readonly string[]).includes(keyword) && isObject(value)) {
      const mapped: JsonSchema = {};
      for (const [key, child] of Object.entries(value)) mapped[key] = map(child, { keyword, key });
      out[keyword] = mapped;
    } else if ((LIST as readonly string[]).includes(keyword) && Array.isArray(value)) {
      out[keyword] = value.map((child, index) => map(child, { keyword, key: String(index) }));
    } else out[keyword] = value;
  }
  return out;
}

/**
 * Byte length of `JSON.stringify(value)` (UTF-8), computed without serializing: shared subtrees
 * (the same object reached twice) are measured once through `memo`, so measuring an expansion never
 * allocates it.
 */
export function serializedSize(value: unknown, memo: WeakMap<object, number> = new WeakMap()): number {
  if (value === null || typeof value !== 'object') return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
  const known = memo.get(value);
  if (known !== undefined) return known;
  let size = 2;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      size += (index > 0 ? 1 : 0) + serializedSize(item, memo);
    });
  } else {
    let first = true;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item === undefined) continue;
      size += (first ? 0 : 1) + Buffer.byteLength(JSON.stringify(key), 'utf8') + 1 + serializedSize(item, memo);
      first = false;
    }
  }
  memo.set(value, size);
  return size;
}

/**
 * Content keys for JSON values: two values get the same key exactly when they are equal JSON
 * (object key order ignored). Keys are small interned ids computed node by node, so a subtree shared
 * by identity is keyed once and no key grows with the size of the expansion.
 */
export class ContentKeys {
  private readonly byObject = new WeakMap<object, string>();
  private readonly interned = new Map<string, string>();

  /** The key of `value`. */
  of(value: unknown): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    const known = this.byObject.get(value);
    if (known !== undefined) return known;
    const token = (item: unknown): string =>
      item !== null && typeof item === 'object' ? this.of(item) : (JSON.stringify(item) ?? 'null');
    const text = Array.isArray(value)
      ? `[${value.map(token).join(',')}]`
      : `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${token((value as Record<string, unknown>)[key])}`)
          .join(',')}}`;
    let key = this.interned.get(text);
    if (key === undefined) {
      // `#` never starts the JSON text of a primitive, so ids cannot collide with primitive keys.
      key = `#${this.interned.size}`;
      this.interned.set(text, key);
    }
    this.byObject.set(value, key);
    return key;
  }
}

/** A deep copy of a JSON value (materializes shared subtrees into a plain tree). */
export function materialize<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
