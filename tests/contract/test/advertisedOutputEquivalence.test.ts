import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { createDefaultTools } from 'rea-mcp';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { advertiseCatalog } from '@rea/schema';
import { directoryArtifact, helloBinary, produce } from './realRecords.js';

// The advertised output schemas are a terse presentation (no prose, no implied keywords, shared
// definitions, folded literal unions). This suite proves that the presentation accepts exactly what
// zod's own JSON Schema of the same contract accepts: every tool's output is checked against both
// with one strict ajv over a corpus of generated valid results, real results of real tools, the
// advertised examples, and systematic mutations of each (missing required field, extra property,
// wrong type, pattern violation, out-of-range and non-integer number) at every path.
//
// The one documented difference is left out of the corpus: zod writes `.int()` as the ±2^53
// safe-integer range, which the advertised schemas do not repeat (canonical validation keeps it).

type Json = Record<string, unknown>;

const tools = await createDefaultTools();
const contracts = new Map(tools.map((tool) => [tool.name, tool]));
const advertised = advertiseCatalog(tools, 'full');
const ajv = new Ajv2020({ strict: true, strictSchema: false, allowUnionTypes: true, validateFormats: false });

/** zod's own JSON Schema of a tool's output: the reference the terse presentation must match. */
function referenceSchema(output: z.ZodType): Json {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(output, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Json;
  return schema;
}

/** Sample strings tried, in order, for a `pattern`: one of them matches every pattern REA's outputs use. */
const PATTERN_SAMPLES = ['0x401000', `ev_${'0'.repeat(64)}`, '0'.repeat(64), 'list_strings', 'main'];

/**
 * A value valid against `schema` (a zod-emitted JSON Schema), choosing the `choice`-th alternative
 * of every union and enum and the `choice`-th type of a type list, so several choices cover the
 * alternatives. Returns undefined when no sample satisfies a pattern.
 */
function generate(schema: unknown, defs: Json, choice: number, depth = 0): unknown {
  if (schema === true || schema === undefined) return { any: [1, 'two', null] };
  const node = schema as Json;
  if (typeof node['$ref'] === 'string')
    return generate(defs[node['$ref'].replace(/^#\/\$defs\//, '')], defs, choice, depth);
  if ('const' in node) return node['const'];
  if (Array.isArray(node['enum'])) return node['enum'][choice % node['enum'].length];
  const alternatives = (node['anyOf'] ?? node['oneOf']) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return generate(alternatives[choice % alternatives.length], defs, choice, depth + 1);
  const types = node['type'] === undefined ? [] : ([] as string[]).concat(node['type'] as string | string[]);
  const type = types.length === 0 ? 'any' : types[(choice + depth) % types.length];
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [key, child] of Object.entries((node['properties'] as Json | undefined) ?? {})) {
        const value = generate(child, defs, choice, depth + 1);
        if (value === undefined) return undefined;
        out[key] = value;
      }
      return out;
    }
    case 'array': {
      const item = generate(node['items'], defs, choice, depth + 1);
      if (item === undefined) return undefined;
      return Array.from({ length: Math.max(1, Number(node['minItems'] ?? 1)) }, () => item);
    }
    case 'string': {
      const pattern = node['pattern'];
      if (typeof pattern === 'string') return PATTERN_SAMPLES.find((sample) => new RegExp(pattern, 'u').test(sample));
      return 'x'.repeat(Math.max(1, Number(node['minLength'] ?? 1)));
    }
    case 'integer':
    case 'number': {
      if (typeof node['minimum'] === 'number')
        return Math.max(node['minimum'], Math.min(node['maximum'] as number, 7) || 0);
      if (typeof node['exclusiveMinimum'] === 'number') return node['exclusiveMinimum'] + 1;
      return 3;
    }
    case 'boolean':
      return choice % 2 === 0;
    case 'null':
      return null;
    default:
      return { any: [1, 'two', null] };
  }
}

/** Values substituted at every path: wrong types, a pattern violation, a negative and a fractional number. */
const REPLACEMENTS: unknown[] = [null, 'not a match', -1, 0.5, 7, true, [], {}, [{}]];

/** Every mutation of `value`: each replacement at each path, each object key removed, an extra key added. */
function* mutations(value: unknown): Generator<unknown> {
  const paths: Array<Array<string | number>> = [];
  const walk = (node: unknown, path: Array<string | number>): void => {
    paths.push(path);
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index]));
    else if (node !== null && typeof node === 'object')
      for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
  };
  walk(value, []);
  // Large real results (a whole binary layout) are sampled evenly so the corpus stays bounded.
  const stride = Math.max(1, Math.ceil(paths.length / 600));
  for (let i = 0; i < paths.length; i += stride) {
    const path = paths[i]!;
    const at = (root: unknown): unknown => path.reduce<unknown>((node, key) => (node as Json)[key as string], root);
    const set = (replacement: unknown): unknown => {
      if (path.length === 0) return replacement;
      const copy = structuredClone(value);
      const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Json)[key as string], copy);
      (parent as Json)[path.at(-1) as string] = replacement;
      return copy;
    };
    for (const replacement of REPLACEMENTS) yield set(replacement);
    const target = at(value);
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
      for (const key of Object.keys(target)) {
        const { [key]: _removed, ...rest } = target as Json;
        yield set(rest);
      }
      yield set({ ...(target as Json), unexpected_extra: 1 });
    }
  }
}

interface Verdicts {
  checked: number;
  accepted: number;
  mismatches: string[];
}

/** Validates `corpus` and every mutation of it with both schemas, recording every disagreement. */
function compare(reference: ValidateFunction, terse: ValidateFunction, corpus: unknown[]): Verdicts {
  const verdicts: Verdicts = { checked: 0, accepted: 0, mismatches: [] };
  const check = (value: unknown): void => {
    const expected = reference(value) === true;
    const actual = terse(value) === true;
    verdicts.checked += 1;
    if (expected) verdicts.accepted += 1;
    if (expected !== actual && verdicts.mismatches.length < 5)
      verdicts.mismatches.push(`${JSON.stringify(value).slice(0, 300)}: reference ${expected}, advertised ${actual}`);
  };
  for (const value of corpus) {
    check(value);
    for (const mutated of mutations(value)) check(mutated);
  }
  return verdicts;
}

const compiled = new Map(
  advertised.tools.map((tool) => [
    tool.name,
    {
      reference: ajv.compile(referenceSchema(contracts.get(tool.name)!.output)),
      // Tools with equal output schemas share one content-bound $id: compile it once, as the SDK does.
      terse: ajv.getSchema(tool.outputSchema['$id'] as string) ?? ajv.compile(tool.outputSchema),
    },
  ]),
);

describe('advertised output schemas accept exactly what the contract schemas accept', () => {
  it('should agree with zod’s own JSON Schema on generated results, the examples and every mutation, for every tool', () => {
    const empty: string[] = [];
    for (const tool of advertised.tools) {
      const { reference, terse } = compiled.get(tool.name)!;
      const schema = referenceSchema(contracts.get(tool.name)!.output);
      const defs = (schema['$defs'] as Json | undefined) ?? {};
      const generated = [0, 1, 2, 3]
        .map((choice) => generate(schema, defs, choice))
        .filter((value) => value !== undefined);
      const verdicts = compare(reference, terse, [...generated, ...tool.examples]);
      expect({ tool: tool.name, mismatches: verdicts.mismatches }).toEqual({ tool: tool.name, mismatches: [] });
      // The corpus is not trivial: generated results are valid, and most mutations are rejected.
      expect({ tool: tool.name, valid: generated.filter((value) => reference(value) === true).length }).toEqual({
        tool: tool.name,
        valid: generated.length,
      });
      if (generated.length === 0) empty.push(tool.name);
      expect(verdicts.checked - verdicts.accepted).toBeGreaterThan(verdicts.checked / 2);
    }
    expect(empty).toEqual([]);
  }, 120_000);
});

describe('advertised output schemas on real results', () => {
  it('should agree with zod’s own JSON Schema on real inspect_artifact results and every mutation', async () => {
    await withTempDir(async (dir) => {
      const { reference, terse } = compiled.get('inspect_artifact')!;
      // The summary views need a retaining session; the generated corpus covers their alternatives.
      const records = [await produce('inspect_artifact', { path: directoryArtifact(dir) })];
      for (const record of records) expect(reference(record)).toBe(true);
      const verdicts = compare(reference, terse, records);
      expect(verdicts.mismatches).toEqual([]);
      expect(verdicts.checked).toBeGreaterThan(500);
    });
  }, 60_000);
});

skipUnless(toolsMissing('gcc'))('advertised output schemas on real binary layouts', () => {
  it('should agree with zod’s own JSON Schema on real inspect_binary_layout results and every mutation', async () => {
    await withTempDir(async (dir) => {
      const binary = helloBinary(dir);
      const { reference, terse } = compiled.get('inspect_binary_layout')!;
      const records = [
        await produce('inspect_binary_layout', { path: binary }),
        await produce('inspect_binary_layout', { path: binary, facet: 'mitigations' }),
      ];
      for (const record of records) expect(reference(record)).toBe(true);
      const verdicts = compare(reference, terse, records);
      expect(verdicts.mismatches).toEqual([]);
      expect(verdicts.checked).toBeGreaterThan(1000);
    });
  }, 60_000);
});
