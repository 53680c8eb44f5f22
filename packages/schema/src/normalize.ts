import { ANNOTATIONS, isObject, mapChildren } from './walk.js';
import { ALL_JSON_TYPES, isUnconstrained, normalizeTypes, typeKeyword, typesOf } from './jsonTypes.js';
import type { JsonSchema } from './types.js';

const COMBINATORS = ['anyOf', 'oneOf', 'allOf', 'not', '$ref', 'if'];

function isNullSchema(node: unknown): boolean {
  return isObject(node) && node['type'] === 'null' && Object.keys(node).length === 1;
}

/**
 * Folds `anyOf: [X, {type: "null"}]` into X with `null` added to its type (and to its `enum`), which
 * validates exactly the same values because every other keyword of X applies to non-null types only.
 */
function foldNullable(node: JsonSchema): JsonSchema {
  const alternatives = node['anyOf'];
  if (!Array.isArray(alternatives) || alternatives.length !== 2) return node;
  const nullIndex = alternatives.findIndex(isNullSchema);
  if (nullIndex < 0) return node;
  const other = alternatives[1 - nullIndex];
  if (!isObject(other) || other['type'] === undefined || COMBINATORS.some((k) => k in other)) return node;
  const types = typesOf(other);
  if (types === null) return node;
  const { anyOf: _anyOf, ...outer } = node;
  const folded: JsonSchema = { ...other, ...outer, type: typeKeyword(normalizeTypes([...types, 'null'])) };
  if ('const' in other) {
    delete folded['const'];
    folded['enum'] = [other['const'], null];
  } else if (Array.isArray(other['enum']) && !other['enum'].includes(null)) {
    folded['enum'] = [...other['enum'], null];
  }
  return folded;
}

/**
 * zod writes `.int()` as the safe-integer range; those two bounds are a representation artefact of
 * JSON numbers, not a rule of the contract, so they are left out (canonical validation keeps them).
 */
function dropSafeIntegerBounds(node: JsonSchema): void {
  const type = node['type'];
  if (!(type === 'integer' || (Array.isArray(type) && type.includes('integer')))) return;
  if (node['minimum'] === Number.MIN_SAFE_INTEGER) delete node['minimum'];
  if (node['maximum'] === Number.MAX_SAFE_INTEGER) delete node['maximum'];
}

/** A union with an unconstrained alternative accepts anything: keep only its outer annotations. */
function collapseOpenUnion(node: JsonSchema): JsonSchema {
  const alternatives = node['anyOf'];
  if (!Array.isArray(alternatives) || !alternatives.some(isUnconstrained)) return node;
  const { anyOf: _anyOf, ...outer } = node;
  return Object.keys(outer).every((key) => ANNOTATIONS.has(key)) ? outer : node;
}

/**
 * Rewrites a schema DAG into the portable form the advertised schemas start from, without changing
 * what it accepts (safe-integer bounds aside): a nullable schema carries `null` in its `type`, a union with an unconstrained
 * member becomes unconstrained, a union gets the `type` of its alternatives, and key-only
 * `propertyNames: {type: "string"}` (always true for JSON) is dropped. With `explicitTypes`,
 * unconstrained JSON (`{}`) lists every JSON type explicitly. Shared subtrees stay shared.
 */
export function normalizeSchema(root: JsonSchema, options: { explicitTypes: boolean }): JsonSchema {
  const memo = new Map<object, unknown>();
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node === true && options.explicitTypes ? { type: [...ALL_JSON_TYPES] } : node;
    const known = memo.get(node);
    if (known !== undefined) return known;
    const open = collapseOpenUnion(node);
    let out: JsonSchema;
    if (isUnconstrained(open)) out = options.explicitTypes ? { ...open, type: [...ALL_JSON_TYPES] } : open;
    else {
      out = foldNullable(mapChildren(open, visit));
      dropSafeIntegerBounds(out);
      const names = out['propertyNames'];
      if (isObject(names) && names['type'] === 'string' && Object.keys(names).length === 1) {
        delete out['propertyNames'];
      }
      if (out['type'] === undefined && (Array.isArray(out['anyOf']) || Array.isArray(out['oneOf']))) {
        const types = typesOf(out);
        if (types !== null) out = { type: typeKeyword(types), ...out };
      }
    }
    memo.set(node, out);
    return out;
  };
  return visit(root) as JsonSchema;
}
