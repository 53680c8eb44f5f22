// A tool's result is judged against its output schema before it is sealed. A valid result is accepted
// by a check that builds nothing (zod's parse, which copies every object, runs only where that check
// does not accept, and its verdict and issues stand): the check must never accept what zod rejects,
// and must accept the valid results tools produce.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { validateCooperatively } from '@rea/provider-kit';
import { acceptance } from '../src/acceptance.js';

const Address = z.string().regex(/^0x[0-9a-f]+$/);
const Symbol = z.strictObject({
  name: z.string(),
  address: Address,
  size: z.number().int().nonnegative(),
  kind: z.enum(['function', 'object']),
  defined: z.boolean(),
  library: z.string().nullable(),
  ordinal: z.number().int().nonnegative().optional(),
  note: z.string().nullable().optional(),
});
const Loose = z.object({ id: z.literal(7), tags: z.array(z.string().min(2).max(3)), any: z.unknown() });
const Complete = z.strictObject({ view: z.literal('complete'), symbols: z.array(Symbol), loose: Loose });
const Summary = z.strictObject({ view: z.literal('summary'), count: z.number().int().lt(10) });
/** Kinds the check leaves to zod at their node: a refinement, a default, a record, a lazy value, an exact optional. */
const Delegated = z.strictObject({
  even: z.number().refine((n) => n % 2 === 0),
  defaulted: z.string().default('x'),
  record: z.record(z.string(), z.number()),
  json: z.json(),
  exact: z.string().exactOptional(),
});
const Result = z.union([Summary, Complete]);

const symbol = { name: 'main', address: '0x1139', size: 42, kind: 'function', defined: true, library: null };
const complete = {
  view: 'complete',
  symbols: [symbol, { ...symbol, ordinal: 3, note: 'n' }],
  loose: { id: 7, tags: ['ab'], any: 0 },
};
const delegated = { even: 4, defaulted: 'y', record: { a: 1 }, json: { b: [1, null] } };

/** Every value one change away from `base`: members removed, added, set to values of other types. */
function mutations(base: Record<string, unknown>): unknown[] {
  const odd = [undefined, null, NaN, Infinity, -1, 1.5, 2 ** 53, '', 'ABC', '0xZZ', '0x1A', true, [], {}, 'x'];
  const out: unknown[] = [null, [], 'text', Object.create({ inherited: 1 }) as unknown];
  for (const key of Object.keys(base)) {
    const { [key]: _removed, ...rest } = base;
    out.push(rest);
    for (const value of odd) out.push({ ...base, [key]: value });
  }
  out.push({ ...base, extra: 1 });
  out.push(Object.assign(Object.create({ extra: 1 }) as object, base));
  out.push(JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(base).slice(1)}`));
  return out;
}

function agreesWithZod(schema: z.ZodType, value: unknown): void {
  const fast = acceptance(schema)(value);
  const zod = schema.safeParse(value).success;
  // Never more lenient than zod; for the kinds it judges itself, exactly zod's verdict.
  expect({ value, fast: fast && !zod }).toEqual({ value, fast: false });
  expect({ value, verdict: fast }).toEqual({ value, verdict: zod });
}

describe('issue 22: judging a result without building it', () => {
  it("should give zod's verdict on valid results and on every one-change mutation of them", () => {
    agreesWithZod(Result, complete);
    agreesWithZod(Result, { view: 'summary', count: 9 });
    agreesWithZod(Delegated, delegated);
    for (const value of mutations(symbol)) agreesWithZod(Symbol, value);
    for (const value of mutations({ id: 7, tags: ['ab', 'abc'], any: 1 })) agreesWithZod(Loose, value);
    for (const value of mutations({ view: 'summary', count: 9 })) agreesWithZod(Result, value);
    for (const value of mutations(complete)) agreesWithZod(Result, value);
    for (const value of mutations(delegated)) agreesWithZod(Delegated, value);
    for (const tags of [['a'], ['abcd'], ['\u{1F600}\u{1F600}'], ['\u{1F600}\u{1F600}\u{1F600}\u{1F600}']])
      agreesWithZod(Loose, { id: 7, tags, any: null });
  });

  it("should accept a valid long table without zod's parse and still report an invalid item with its path", async () => {
    const symbols = Array.from({ length: 10_000 }, (_, i) => ({ ...symbol, name: `f${i}`, size: i }));
    const element = Symbol as unknown as { _zod: { run: (...args: unknown[]) => unknown } };
    const run = element._zod.run;
    let parsed = 0;
    element._zod.run = (...args: unknown[]) => {
      parsed += 1;
      return run(...args);
    };
    try {
      expect(await validateCooperatively(Result, { ...complete, symbols }, undefined)).toBeNull();
      expect(parsed).toBe(0);
      const bad = symbols.map((s, i) => (i === 9_321 ? { ...s, address: '0x12G' } : s));
      const issues = await validateCooperatively(Complete, { ...complete, symbols: bad }, undefined);
      expect(issues?.map((issue) => issue.path)).toEqual([['symbols', 9_321, 'address']]);
      expect(parsed).toBeGreaterThan(0);
    } finally {
      element._zod.run = run;
    }
  });
});
