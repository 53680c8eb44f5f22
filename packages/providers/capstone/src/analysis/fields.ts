/**
 * Makes V8 keep the named number fields of `record` as references, and returns `record`.
 *
 * V8 chooses how to store each field of an object from the values it has held: small integers alone,
 * doubles (each in a box of the object's own, which code V8 has not optimized yet copies on every read
 * and write), or references to anything. A field that may hold NaN or an address of 2^30 or more ends
 * up storing doubles, and each read of it then allocates in the first, unoptimized part of a run, which
 * for a short command is most of it. Once a field has held `null` and a number it stores references:
 * a read allocates nothing, and a number too large for a small integer is boxed once, when computed.
 * V8 changes a field from small integers to references in place, for every object of the same shape.
 */
export function referenceFields<T extends object>(record: T, ...keys: Array<keyof T>): T {
  const fields = record as Record<keyof T, unknown>;
  for (const key of keys) {
    const value = fields[key];
    fields[key] = null;
    fields[key] = value;
  }
  return record;
}
