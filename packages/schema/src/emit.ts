import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { isObject, mapChildren } from './walk.js';
import type { JsonSchema } from './types.js';

const DEF_REF = /^#\/\$defs\/(.+)$/;

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function recursive(path: string, ref: string): never {
  throw new ReaError(
    'invalid_request',
    `The schema is recursive at ${path} (${ref}): advertised schemas must not contain reachable recursion.`,
    {
      details: { reason: 'recursive-schema', path, ref },
      remediation:
        'Replace the recursive part with a bounded structure or an unconstrained JSON value validated in code.',
    },
  );
}

/**
 * Replaces every schema-local reference (`#/$defs/<name>`, or `#` for the root) by the schema it
 * names, keeping sibling keywords (a use-site description overrides the shared one). Each
 * definition is resolved once and then shared by object identity, so the result is a DAG whose
 * expansion is never allocated. A reference reached again while it is being resolved is recursion
 * and is refused with `invalid_request` (`details.reason: "recursive-schema"`). Other references are
 * left as they are.
 */
export function resolveLocalRefs(root: JsonSchema, defs: Record<string, unknown>): JsonSchema {
  const resolved = new Map<string, unknown>();
  const active = new Set<string>();
  const visit = (node: unknown, path: string): unknown => {
    if (!isObject(node)) return node;
    const ref = node['$ref'];
    let base: JsonSchema | undefined;
    if (typeof ref === 'string' && (ref === '#' || DEF_REF.test(ref))) {
      const name = ref === '#' ? '#' : decodePointer(DEF_REF.exec(ref)![1]!);
      if (active.has(name) || name === '#') recursive(path, ref);
      if (!resolved.has(name)) {
        if (!(name in defs)) {
          throw new ReaError('invalid_request', `The schema refers to an undefined definition ${ref} at ${path}.`, {
            details: { reason: 'dangling-ref', path, ref },
          });
        }
        active.add(name);
        resolved.set(name, visit(defs[name], `${path}(${ref})`));
        active.delete(name);
      }
      const target = resolved.get(name);
      const siblings = Object.keys(node).filter((key) => key !== '$ref');
      if (siblings.length === 0) return target;
      base = isObject(target) ? target : {};
      const rest: JsonSchema = {};
      for (const key of siblings) rest[key] = node[key];
      return { ...base, ...mapChildren(rest, (child, slot) => visit(child, `${path}/${slot.keyword}`)) };
    }
    return mapChildren(node, (child, slot) =>
      visit(child, `${path}/${slot.keyword}${slot.key === undefined ? '' : `/${slot.key}`}`),
    );
  };
  return visit(root, '#') as JsonSchema;
}

/**
 * The JSON Schema (2020-12) of a zod schema for `io` ("input": what callers send; "output": what a
 * tool returns), with zod's definitions resolved into a shared DAG and recursion refused. The root
 * `$schema` is kept. A zod type JSON Schema cannot express (a date, a function, a bigint) is refused
 * with `invalid_request` (`details.reason: "unrepresentable-schema"`).
 */
export function emitJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  let raw: JsonSchema;
  try {
    raw = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'throw',
      cycles: 'ref',
      reused: 'ref',
    }) as JsonSchema;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ReaError('invalid_request', `The zod schema cannot be expressed as JSON Schema: ${message}`, {
      details: { reason: 'unrepresentable-schema', problem: message },
    });
  }
  const { $defs, ...root } = raw;
  return resolveLocalRefs(root, isObject($defs) ? $defs : {});
}
