import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { throwIfAborted } from '@rea/evidence';

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
 * the rest of the object is validated in one go, first, so that a wrong union option is rejected
 * before its tables are read. Returns the issues of the first failure (paths from the root), or null.
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
  if (long.length === 0) return plain(schema, value);
  const omitted = Object.fromEntries(long.map((key) => [key, true])) as Record<string, true>;
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !long.includes(key)));
  const shell = plain(schema.omit(omitted), rest);
  if (shell !== null) return shell;
  for (const key of long) {
    const items = value[key] as unknown[];
    const batch = z.array(splittableArray(shape[key])!.element as z.ZodType);
    let sliceStart = performance.now();
    for (let at = 0; at < items.length; at += BATCH) {
      const checked = batch.safeParse(items.slice(at, at + BATCH));
      if (!checked.success) {
        return checked.error.issues.map((issue) => {
          const [index, ...path] = issue.path;
          return { ...issue, path: [key, (index as number) + at, ...path] };
        });
      }
      if (performance.now() - sliceStart < SLICE_MS && !signal?.aborted) continue;
      await nextTurn();
      throwIfAborted(signal, 'validation');
      sliceStart = performance.now();
    }
  }
  return null;
}

function plain(schema: z.ZodType, value: unknown): ValidationIssues {
  const checked = schema.safeParse(value);
  return checked.success ? null : checked.error.issues;
}
