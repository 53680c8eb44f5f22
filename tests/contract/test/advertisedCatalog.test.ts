import { describe, expect, it } from '@jest/globals';
import { fromJsonSchema } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { z } from 'zod';
import { createDefaultTools } from 'rea-mcp';
import type { EvidenceRecord } from '@rea/evidence';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { COMPACT_INPUT_SCHEMA_BUDGET, advertiseCatalog, outputJsonSchema } from '@rea/schema';
import type { AdvertisedCatalog, SchemaProfile } from '@rea/schema';
import { directoryArtifact, helloBinary, produce } from './realRecords.js';

/**
 * The tools whose compact input schema is the reduced presentation. A change here is deliberate:
 * REA's schemas are designed to fit the budget whole. compare_web_captures takes two complete
 * inspect_web_page, discover_webmcp_tools and capture_browser_scenario results (both shapes), whose
 * structure inlined alone exceeds the budget.
 */
const REDUCED_IN_COMPACT: string[] = ['compare_web_captures'];

/**
 * The size budget of `tools/list` per tool in every profile (serialized bytes of the advertised
 * fields, output schemas included), averaged over the catalog: under 4.5 KB. Every Evidence tool's
 * self-contained output schema carries the Evidence envelope (about 1.4 KB) and the application
 * tools' results are rich (about 9 KB for analyze_javascript_application), so the average sits near
 * 4.1 KB in the full profile and 3.9 KB in the compact one. The browser tools add complete capture
 * schemas: compare_web_captures advertises both comparison shapes with every capture field (about 9 KB)
 * and inspect_web_page's result is about 5.4 KB, which brings the full profile near 4.5 KB; the budget
 * keeps growth visible.
 */
const TOOLS_LIST_BYTES_PER_TOOL = 4608;

const tools = await createDefaultTools();
const contracts = new Map(tools.map((tool) => [tool.name, tool]));
const profiles: SchemaProfile[] = ['full', 'compact'];
const catalogs: Record<SchemaProfile, AdvertisedCatalog> = {
  full: advertiseCatalog(tools, 'full'),
  compact: advertiseCatalog(tools, 'compact'),
};

// Strict 2020-12 ajv, lenient only about unknown keywords; formats are checked by the SDK's validator.
const ajv = new Ajv2020({ strict: true, strictSchema: false, allowUnionTypes: true, validateFormats: false });
const sdkValidator = new AjvJsonSchemaValidator();

/** The schema after the MCP SDK's own conversion, with the SDK's validator and a strict ajv compile. */
function viaSdk(schema: Record<string, unknown>) {
  const wrapped = fromJsonSchema(schema, sdkValidator);
  const converted = wrapped['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as Record<string, unknown>;
  const id = converted['$id'];
  const compiled = (typeof id === 'string' ? ajv.getSchema(id) : undefined) ?? ajv.compile(converted);
  return (value: unknown) => {
    const sdk = wrapped['~standard'].validate(value) as { issues?: unknown };
    return { ajv: compiled(value) ? '' : ajv.errorsText(compiled.errors), sdk: sdk.issues === undefined };
  };
}

describe('advertised catalog of the default tools', () => {
  it('should list the same tools, output schemas and annotations in both profiles, hints read as the contract declares them', () => {
    expect(catalogs.full.tools.length).toBe(tools.length);
    expect(catalogs.compact.tools.map((t) => t.name)).toEqual(catalogs.full.tools.map((t) => t.name));
    catalogs.full.tools.forEach((tool, index) => {
      expect(catalogs.compact.tools[index]!.outputSchema).toEqual(tool.outputSchema);
      expect(catalogs.compact.tools[index]!.annotations).toEqual(tool.annotations);
      // An omitted hint is read as its MCP default (ToolAnnotations: readOnlyHint false,
      // destructiveHint true, idempotentHint false, openWorldHint true); none is advertised at it.
      const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
      const repeated = Object.entries(tool.annotations).filter(
        ([hint, value]) => defaults[hint as keyof typeof defaults] === value,
      );
      expect({ tool: tool.name, repeated }).toEqual({ tool: tool.name, repeated: [] });
      expect({ tool: tool.name, hints: { ...defaults, ...tool.annotations } }).toEqual({
        tool: tool.name,
        hints: contracts.get(tool.name)!.annotations,
      });
    });
  });

  it('should pass every portability rule in both profiles', () => {
    for (const profile of profiles) {
      const failures = catalogs[profile].tools.flatMap((tool) =>
        tool.portability.rules.filter((r) => !r.passed).map((r) => `${tool.name}: ${r.rule}: ${r.detail}`),
      );
      expect({ profile, failures }).toEqual({ profile, failures: [] });
    }
  });

  it('should keep every compact input schema within the budget and pin the reduced set', () => {
    const oversized = catalogs.compact.tools
      .filter((tool) => Buffer.byteLength(JSON.stringify(tool.inputSchema), 'utf8') > COMPACT_INPUT_SCHEMA_BUDGET)
      .map((tool) => tool.name);
    expect(oversized).toEqual([]);
    expect(catalogs.compact.reduced).toEqual(REDUCED_IN_COMPACT);
    expect(catalogs.full.reduced).toEqual([]);
  });

  it('should compile every schema after SDK conversion and accept every canonical example in both profiles', () => {
    for (const profile of profiles) {
      for (const tool of catalogs[profile].tools) {
        viaSdk(tool.outputSchema);
        const check = viaSdk(tool.inputSchema);
        for (const example of contracts.get(tool.name)!.examples) {
          const verdict = check(example.input);
          expect({ tool: tool.name, profile, ...verdict }).toEqual({ tool: tool.name, profile, ajv: '', sdk: true });
        }
      }
    }
  }, 180_000);

  it('should advertise only distinct examples valid against the advertised and the canonical schema', () => {
    for (const tool of catalogs.full.tools) {
      const contract = contracts.get(tool.name)!;
      const check = viaSdk(tool.inputSchema);
      expect(new Set(tool.examples.map((e) => JSON.stringify(e))).size).toBe(tool.examples.length);
      for (const example of tool.examples) {
        expect({ tool: tool.name, ...check(example) }).toEqual({ tool: tool.name, ajv: '', sdk: true });
        expect(contract.input.safeParse(example).success).toBe(true);
        expect(JSON.stringify(example)).not.toContain('"schema_version":2');
      }
    }
  });

  it('should keep tools/list under 4.5 KB per tool on average, output schemas included, in both profiles', () => {
    for (const profile of profiles) {
      const listed = catalogs[profile].tools.map(
        ({ name, title, description, inputSchema, outputSchema, annotations }) => ({
          name,
          title,
          description,
          inputSchema,
          outputSchema,
          annotations,
        }),
      );
      const perTool = Buffer.byteLength(JSON.stringify({ tools: listed }), 'utf8') / listed.length;
      expect({ profile, under: perTool < TOOLS_LIST_BYTES_PER_TOOL, perTool }).toMatchObject({ profile, under: true });
    }
  });

  it('should advertise output schemas without prose, and keep each Evidence result schema complete', () => {
    for (const tool of catalogs.full.tools) {
      const text = JSON.stringify(tool.outputSchema);
      expect({ tool: tool.name, prose: /"(description|title|examples)":"/.test(text) }).toEqual({
        tool: tool.name,
        prose: false,
      });
      const properties = tool.outputSchema['properties'] as Record<string, unknown>;
      if (!('normalized_result' in properties)) continue;
      // The result schema as a validator sees it: a self-contained projection of the result alone,
      // with shared definitions inlined, equals the record's normalized_result with its own inlined.
      const output = contracts.get(tool.name)!.output as unknown as { shape: Record<string, z.ZodType> };
      const alone = inlined(outputJsonSchema(output.shape['normalized_result']!));
      expect({
        tool: tool.name,
        result: (inlined(tool.outputSchema)['properties'] as Json)['normalized_result'],
      }).toEqual({
        tool: tool.name,
        result: alone,
      });
    }
  });
});

type Json = Record<string, unknown>;

/** A schema with every `#/$defs/…` reference replaced by its definition and no `$defs`, `$id`, `$schema`. */
function inlined(schema: Json): Json {
  const defs = (schema['$defs'] as Json | undefined) ?? {};
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as Json)['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return visit(defs[ref.slice('#/$defs/'.length)]);
    const out: Json = {};
    for (const [key, child] of Object.entries(value as Json)) {
      if (key === '$defs' || key === '$id' || key === '$schema') continue;
      out[key] = key === 'enum' || key === 'const' || key === 'required' ? child : visit(child);
    }
    return out;
  };
  return visit(schema) as Json;
}

skipUnless(toolsMissing('gcc'))('Evidence from real tools against the advertised output schemas', () => {
  it('should accept records from inspect_artifact and inspect_binary_layout, and reject them altered', async () => {
    await withTempDir(async (dir) => {
      const binary = helloBinary(dir);
      const records: Array<[string, EvidenceRecord]> = [
        ['inspect_artifact', await produce('inspect_artifact', { path: directoryArtifact(dir) })],
        ['inspect_binary_layout', await produce('inspect_binary_layout', { path: binary })],
        ['inspect_binary_layout', await produce('inspect_binary_layout', { path: binary, facet: 'mitigations' })],
      ];
      for (const profile of profiles) {
        for (const [name, record] of records) {
          const tool = catalogs[profile].tools.find((t) => t.name === name)!;
          const check = viaSdk(tool.outputSchema);
          expect({ name, profile, ...check(record) }).toEqual({ name, profile, ajv: '', sdk: true });
          const canonical = contracts.get(name)!.output;
          for (const altered of [
            { ...record, normalized_result: {} },
            { ...record, confidence: 'certain' },
            { ...record, unexpected: true },
          ]) {
            expect(canonical.safeParse(altered).success).toBe(false);
            expect({ name, profile, accepted: check(altered).sdk }).toEqual({ name, profile, accepted: false });
          }
        }
      }
    });
  }, 60_000);
});
