import type { z } from 'zod';

/**
 * A predicate that is true only for values `schema.safeParse` accepts. It decides acceptance alone:
 * it builds no output and no issues, so a large result that satisfies its schema is judged without
 * the allocation of zod's parse (a new object per object, a payload per member). Schema kinds it does
 * not know member for member, and checks other than the common ones, are judged by zod itself at that
 * node, so the predicate never accepts what zod rejects; when it rejects, the caller asks zod for the
 * issues (and zod's verdict stands).
 */
export type Acceptance = (value: unknown) => boolean;

interface Internals {
  def: Record<string, unknown> & { type: string };
  traits: Set<string>;
  optin?: string;
  optout?: string;
  values?: Set<unknown>;
  check?: (payload: { value: unknown; issues: unknown[] }) => unknown;
}

const compiled = new WeakMap<object, Acceptance>();

/** The {@link Acceptance} of `schema`, compiled once per schema object. */
export function acceptance(schema: z.ZodType): Acceptance {
  let accept = compiled.get(schema);
  if (accept === undefined) {
    accept = compile(schema);
    compiled.set(schema, accept);
  }
  return accept;
}

function internals(schema: unknown): Internals {
  return (schema as { _zod: Internals })._zod;
}

/** The schema's own zod traits (`$Zod…`), sorted: identifies exactly which parse it runs. */
function kindOf(zod: Internals): string {
  return [...zod.traits]
    .filter((t) => t.startsWith('$'))
    .sort()
    .join(',');
}

/** True when the definition has no members beyond `allowed` (an empty list of checks is none). */
function only(def: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(def).every((key) =>
    key === 'checks' && Array.isArray(def[key])
      ? allowed.includes(key) || def[key].length === 0
      : allowed.includes(key),
  );
}

function delegate(schema: z.ZodType): Acceptance {
  return (value) => schema.safeParse(value).success;
}

function compile(schema: z.ZodType): Acceptance {
  const zod = internals(schema);
  const def = zod.def;
  const checks = (def['checks'] as unknown[] | undefined) ?? [];
  switch (kindOf(zod)) {
    case '$ZodString,$ZodType': {
      const check = only(def, ['type', 'checks']) ? checksOf(checks) : null;
      if (check === null) return delegate(schema);
      return (value) => typeof value === 'string' && check(value);
    }
    case '$ZodNumber,$ZodType': {
      const check = only(def, ['type', 'checks']) ? checksOf(checks) : null;
      if (check === null) return delegate(schema);
      return (value) => typeof value === 'number' && Number.isFinite(value) && check(value);
    }
    case '$ZodBoolean,$ZodType':
      return only(def, ['type']) ? (value) => typeof value === 'boolean' : delegate(schema);
    case '$ZodNull,$ZodType':
      return only(def, ['type']) ? (value) => value === null : delegate(schema);
    case '$ZodAny,$ZodType':
    case '$ZodType,$ZodUnknown':
      return only(def, ['type']) ? () => true : delegate(schema);
    case '$ZodEnum,$ZodType':
    case '$ZodLiteral,$ZodType': {
      const values = zod.values;
      if (!only(def, ['type', 'entries', 'values']) || values === undefined) return delegate(schema);
      return (value) => values.has(value);
    }
    case '$ZodNullable,$ZodType': {
      if (!only(def, ['type', 'innerType'])) return delegate(schema);
      const inner = acceptance(def['innerType'] as z.ZodType);
      return (value) => value === null || inner(value);
    }
    case '$ZodOptional,$ZodType': {
      const innerType = def['innerType'] as z.ZodType;
      // An optional over a default substitutes a value for absence: zod judges it.
      if (!only(def, ['type', 'innerType']) || internals(innerType).optin === 'defaulted') return delegate(schema);
      const inner = acceptance(innerType);
      return (value) => value === undefined || inner(value);
    }
    case '$ZodType,$ZodUnion': {
      if (!only(def, ['type', 'options'])) return delegate(schema);
      const options = (def['options'] as z.ZodType[]).map((option) => acceptance(option));
      return (value) => options.some((option) => option(value));
    }
    case '$ZodArray,$ZodType': {
      if (!only(def, ['type', 'element']) || checks.length > 0) return delegate(schema);
      const element = acceptance(def['element'] as z.ZodType);
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i += 1) if (!element(value[i])) return false;
        return true;
      };
    }
    case '$ZodObject,$ZodObjectJIT,$ZodType':
      return objectAcceptance(schema, def) ?? delegate(schema);
    default:
      return delegate(schema);
  }
}

/** A plain or strict object's acceptance, as zod's object parse decides it; null for other objects. */
function objectAcceptance(schema: z.ZodType, def: Internals['def']): Acceptance | null {
  if (!only(def, ['type', 'shape', 'catchall'])) return null;
  const catchall = def['catchall'];
  // Strict (unknown keys rejected) or plain (unknown keys dropped); any other catchall is zod's.
  const strict = catchall !== undefined;
  if (strict && kindOf(internals(catchall)) !== '$ZodNever,$ZodType') return null;
  const shape = (schema as unknown as { shape: Record<string, z.ZodType> }).shape;
  if (Object.getOwnPropertySymbols(shape).length > 0) return null;
  const keys = Object.keys(shape);
  if (keys.includes('__proto__')) return null;
  const known = new Set(keys);
  const members = keys.map((key) => {
    const zod = internals(shape[key]);
    return { key, accept: acceptance(shape[key]!), optin: zod.optin, optout: zod.optout };
  });
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const input = value as Record<string, unknown>;
    for (const { key, accept, optin, optout } of members) {
      const present = key in input;
      // As zod: an absent optional key is skipped; an absent required key fails even when its schema accepts undefined.
      if (!present && optin === 'optional' && optout === 'optional') continue;
      if (!accept(input[key])) {
        if (!present && optin !== undefined && optout === 'optional') continue;
        return false;
      }
      if (!present && optin === undefined) return false;
    }
    if (strict) {
      for (const key in input) if (!known.has(key)) return false;
    }
    return true;
  };
}

/**
 * One predicate for a string's or number's checks, or null when one of them is not a check this
 * module knows exactly (the node is then judged by zod).
 */
function checksOf(checks: readonly unknown[]): Acceptance | null {
  const tests: Acceptance[] = [];
  for (const check of checks) {
    const zod = internals(check);
    const def = zod.def as Record<string, unknown>;
    if (def['when'] !== undefined && !['min_length', 'max_length', 'length_equals'].includes(def['check'] as string))
      return null;
    const kind = kindOf(zod);
    if (kind === '$ZodCheck,$ZodCheckRegex,$ZodCheckStringFormat') {
      const pattern = def['pattern'] as RegExp;
      tests.push((value) => {
        pattern.lastIndex = 0;
        return pattern.test(value as string);
      });
    } else if (kind === '$ZodCheck,$ZodCheckGreaterThan' && typeof def['value'] === 'number') {
      const bound = def['value'];
      tests.push(def['inclusive'] ? (value) => (value as number) >= bound : (value) => (value as number) > bound);
    } else if (kind === '$ZodCheck,$ZodCheckLessThan' && typeof def['value'] === 'number') {
      const bound = def['value'];
      tests.push(def['inclusive'] ? (value) => (value as number) <= bound : (value) => (value as number) < bound);
    } else if (def['check'] === 'number_format' && def['format'] === 'safeint') {
      tests.push((value) => Number.isSafeInteger(value));
    } else if (
      kind === '$ZodCheck,$ZodCheckMinLength' ||
      kind === '$ZodCheck,$ZodCheckMaxLength' ||
      kind === '$ZodCheck,$ZodCheckLengthEquals'
    ) {
      // Zod's own check (code points, its `when`), run on a payload of its own: it only reads the value.
      const when = def['when'] as ((payload: object) => boolean) | undefined;
      const run = zod.check!;
      tests.push((value) => {
        const payload = { value, issues: [] as unknown[] };
        if (when !== undefined && !when(payload)) return true;
        return run(payload) === undefined && payload.issues.length === 0;
      });
    } else return null;
  }
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0]!;
  return (value) => tests.every((test) => test(value));
}
