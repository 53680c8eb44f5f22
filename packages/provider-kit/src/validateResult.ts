import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { monotonicMs, throwIfAborted } from '@rea/evidence';
import { acceptance } from './acceptance.js';

/** Arrays longer than this are validated a batch of items at a time. */
const LONG = 2048;
/** Items validated between two looks at the clock. */
const BATCH = 256;
/** Longest stretch of validation between two turns of the event loop (ms). */
const SLICE_MS = 10;

/** The first issues of a failed validation, or null when `value` satisfies `schema`. */
export type ValidationIssues = z.core.$ZodIssue[] | null;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A plain `z.array(…)` without length checks: its items can be judged apart from the array. */
function splittableArray(schema: unknown): z.ZodArray | null {
  if (!(schema instanceof z.ZodArray)) return null;
  const checks = (schema._zod.def as { checks?: unknown[] }).checks;
  return checks && checks.length > 0 ? null : schema;
}

/**
 * Whether `value` satisfies `schema`, judged as `schema.safeParse` judges it, without holding the
 * event loop for a large value: in an object (or in each option of a union of objects), members that
 * are long arrays of a plain array schema are validated a batch of items at a time, with a turn of
 * the event loop and a look at `signal` whenever about ten milliseconds of batches have run (`cancelled`, `details.phase: "validation"`);
 * members that are objects holding such tables (a few levels deep) are judged the same way, member by
 * member; the rest of the object is validated in one go, first, so that a wrong union option is rejected
 * before its tables are read. Returns the issues of the first failure (paths from the root), or null.
 * A value is first judged by its schema's {@link acceptance} (no output is built); zod's parse runs
 * only where that does not accept, and its verdict and issues stand.
 */
export async function validateCooperatively(
  schema: z.ZodType,
  value: unknown,
  signal: AbortSignal | undefined,
): Promise<ValidationIssues> {
  if (schema instanceof z.ZodUnion) {
    for (const option of schema.options as z.ZodType[]) {
      if ((await validateCooperatively(option, value, signal)) === null) return null;
    }
    // As zod reports a union that no option accepts: the issues of the whole union.
    const whole = schema.safeParse(value);
    return whole.success ? null : whole.error.issues;
  }
  if (!(schema instanceof z.ZodObject) || !isPlainObject(value)) return plain(schema, value);
  const shape = schema.shape as Record<string, z.ZodType>;
  const long = Object.keys(shape).filter(
    (key) => Array.isArray(value[key]) && (value[key] as unknown[]).length > LONG && splittableArray(shape[key]),
  );
  // Members that are objects holding long tables (an Evidence record's normalized_result) are judged
  // the same way, member by member.
  const nested = Object.keys(shape).filter(
    (key) => !long.includes(key) && holdsLongTable(shape[key], value[key], NESTING),
  );
  if (long.length === 0 && nested.length === 0) return plain(schema, value);
  const apart = [...long, ...nested];
  const omitted = Object.fromEntries(apart.map((key) => [key, true])) as Record<string, true>;
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !apart.includes(key)));
  let outer: z.ZodType;
  try {
    outer = schema.omit(omitted);
  } catch {
    // An object with refinements of its own cannot be judged apart from its members.
    return plain(schema, value);
  }
  const shell = plain(outer, rest);
  if (shell !== null) return shell;
  for (const key of nested) {
    const issues = await validateCooperatively(shape[key]!, value[key], signal);
    if (issues !== null) return issues.map((issue) => ({ ...issue, path: [key, ...issue.path] }));
  }
  for (const key of long) {
    const items = value[key] as unknown[];
    const element = splittableArray(shape[key])!.element as z.ZodType;
    const accepts = acceptance(element);
    const batch = z.array(element);
    let sliceStart = monotonicMs();
    for (let at = 0; at < items.length; at += BATCH) {
      // zod's parse is asked only for a batch the quick judgement does not accept (for its issues).
      const end = Math.min(items.length, at + BATCH);
      let accepted = true;
      for (let i = at; i < end && accepted; i += 1) accepted = accepts(items[i]);
      const checked = accepted ? null : batch.safeParse(items.slice(at, end));
      if (checked !== null && !checked.success) {
        return checked.error.issues.map((issue) => {
          const [index, ...path] = issue.path;
          return { ...issue, path: [key, (index as number) + at, ...path] };
        });
      }
      if (monotonicMs() - sliceStart < SLICE_MS && !signal?.aborted) continue;
      await nextTurn();
      throwIfAborted(signal, 'validation');
      sliceStart = monotonicMs();
    }
  }
  return null;
}

/** How deep in objects long tables are looked for. */
const NESTING = 3;

/** True when `value` is an object judged by an object or union schema and holds a long array within `depth` levels. */
function holdsLongTable(schema: z.ZodType | undefined, value: unknown, depth: number): boolean {
  if (!(schema instanceof z.ZodObject || schema instanceof z.ZodUnion) || !isPlainObject(value)) return false;
  return hasLongArray(value, depth);
}

function hasLongArray(value: Record<string, unknown>, depth: number): boolean {
  for (const member of Object.values(value)) {
    if (Array.isArray(member) && member.length > LONG) return true;
    if (depth > 1 && isPlainObject(member) && hasLongArray(member, depth - 1)) return true;
  }
  return false;
}

function plain(schema: z.ZodType, value: unknown): ValidationIssues {
  if (acceptance(schema)(value)) return null;
  const checked = schema.safeParse(value);
  return checked.success ? null : checked.error.issues;
}
