import { describe, expect, it } from '@jest/globals';
import { fromJsonSchema } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createDefaultTools } from 'rea';
import { COMPACT_INPUT_SCHEMA_BUDGET, advertiseCatalog } from '@rea/schema';
import type { AdvertisedCatalog, SchemaProfile } from '@rea/schema';

/**
 * The tools whose compact input schema is the reduced presentation. A change here is deliberate:
 * REA's schemas are designed to fit the budget whole.
 */
const REDUCED_IN_COMPACT: string[] = [];

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
  it('should list the same tools, output schemas and annotations in both profiles', () => {
    expect(catalogs.full.tools.length).toBe(tools.length);
    expect(catalogs.compact.tools.map((t) => t.name)).toEqual(catalogs.full.tools.map((t) => t.name));
    catalogs.full.tools.forEach((tool, index) => {
      expect(catalogs.compact.tools[index]!.outputSchema).toEqual(tool.outputSchema);
      expect(catalogs.compact.tools[index]!.annotations).toEqual(tool.annotations);
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
});
