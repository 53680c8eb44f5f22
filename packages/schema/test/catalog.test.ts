import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import * as evidence from '@rea/evidence';
import { NO_EFFECTS, defineTool } from '@rea/provider-kit';
import { COMPACT_INPUT_SCHEMA_BUDGET, advertiseCatalog } from '@rea/schema';
import type { AdvertisedCatalog, SchemaProfile } from '@rea/schema';
import { createSyntheticCatalog } from '../../../bench/schema/syntheticCatalog.mjs';
import { convert, expectAcceptedEverywhere } from './validators.js';
import { expectReaError } from './errors.js';

const { tools } = createSyntheticCatalog({ z, evidence });
const profiles: SchemaProfile[] = ['full', 'compact'];
const catalogs: Record<SchemaProfile, AdvertisedCatalog> = {
  full: advertiseCatalog(tools, 'full'),
  compact: advertiseCatalog(tools, 'compact'),
};
const byName = new Map(tools.map((tool) => [tool.name, tool]));
const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The hint defaults the MCP specification states (ToolAnnotations): what a client reads for an omitted hint. */
const SPEC_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** The four hints a client reads from advertised annotations, after checking none repeats its default. */
function readHints(advertised: Record<string, unknown>): Record<string, unknown> {
  for (const [hint, value] of Object.entries(advertised)) {
    expect({ hint, value, isDefault: SPEC_DEFAULTS[hint as keyof typeof SPEC_DEFAULTS] === value }).toEqual({
      hint,
      value,
      isDefault: false,
    });
  }
  return { ...SPEC_DEFAULTS, ...advertised };
}

describe('advertiseCatalog over a synthetic catalog of 31 tools', () => {
  it('should list every tool once, sorted by name, in both profiles', () => {
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toHaveLength(31);
    for (const profile of profiles) expect(catalogs[profile].tools.map((tool) => tool.name)).toEqual(names);
  });

  it('should give both profiles the same output schemas, annotations and examples; hints at their MCP default are omitted', () => {
    catalogs.full.tools.forEach((tool, index) => {
      const compact = catalogs.compact.tools[index]!;
      expect(compact.outputSchema).toEqual(tool.outputSchema);
      expect(compact.annotations).toEqual(tool.annotations);
      expect(compact.examples).toEqual(tool.examples);
      expect(readHints(tool.annotations)).toEqual(byName.get(tool.name)!.annotations);
    });
  });

  it('should pass every portability rule in both profiles', () => {
    for (const profile of profiles) {
      const failures = catalogs[profile].tools.flatMap((tool) =>
        tool.portability.rules
          .filter((rule) => !rule.passed)
          .map((rule) => `${tool.name}: ${rule.rule}: ${rule.detail}`),
      );
      expect({ profile, failures }).toEqual({ profile, failures: [] });
    }
  });

  it('should keep every compact input schema within the budget, and pin the reduced set (none)', () => {
    for (const tool of catalogs.compact.tools) {
      expect({ name: tool.name, fits: bytes(tool.inputSchema) <= COMPACT_INPUT_SCHEMA_BUDGET }).toEqual({
        name: tool.name,
        fits: true,
      });
    }
    expect(catalogs.compact.reduced).toEqual([]);
    expect(catalogs.full.reduced).toEqual([]);
  });

  it('should compile every input and output schema after SDK conversion, accepting every canonical example', () => {
    for (const profile of profiles) {
      for (const tool of catalogs[profile].tools) {
        const contract = byName.get(tool.name)!;
        const input = convert(tool.inputSchema);
        convert(tool.outputSchema);
        for (const example of contract.examples) expectAcceptedEverywhere(input, contract.input, example.input);
      }
    }
  });

  it('should advertise only valid, distinct examples with Evidence by reference', () => {
    for (const tool of catalogs.full.tools) {
      const contract = byName.get(tool.name)!;
      const converted = convert(tool.inputSchema);
      const seen = new Set(tool.examples.map((example) => evidence.canonicalJson(example)));
      expect(seen.size).toBe(tool.examples.length);
      for (const example of tool.examples) {
        expectAcceptedEverywhere(converted, contract.input, example);
        expect(JSON.stringify(example)).not.toContain('"schema_version":2');
      }
    }
    const advertisedCounts = Object.fromEntries(catalogs.full.tools.map((tool) => [tool.name, tool.examples.length]));
    expect(advertisedCounts['verify_evidence_record']).toBe(0);
    expect(advertisedCounts['compare_evidence']).toBe(2);
  });

  it('should digest the canonical JSON of the advertised catalog, per profile', () => {
    for (const profile of profiles) {
      const catalog = catalogs[profile];
      const projection = catalog.tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
      }));
      const expected = createHash('sha256').update(evidence.canonicalJson(projection), 'utf8').digest('hex');
      expect(catalog.digest).toBe(expected);
      expect(advertiseCatalog([...tools].reverse(), profile).digest).toBe(catalog.digest);
    }
    expect(catalogs.full.digest).not.toBe(catalogs.compact.digest);
    const changed = tools.map((tool) => (tool.name === 'list_strings' ? { ...tool, title: 'Strings' } : tool));
    expect(advertiseCatalog(changed, 'full').digest).not.toBe(catalogs.full.digest);
  });

  it('should refuse two tools with one name, and name the tool whose schema cannot be projected', () => {
    expectReaError(() => advertiseCatalog([tools[0]!, tools[0]!], 'full'), 'invalid_request', 'duplicate-tool');
    const broken = { ...tools[0]!, name: 'broken_tool', input: z.strictObject({ when: z.date().describe('When.') }) };
    const error = expectReaError(
      () => advertiseCatalog([broken], 'compact'),
      'invalid_request',
      'unrepresentable-schema',
    );
    expect(error.details['tool']).toBe('broken_tool');
  });

  it('should project a provider-kit tool contract as it is', () => {
    const contract = defineTool({
      name: 'count_sections',
      title: 'Count sections',
      description: 'Counts the sections of the active target and returns the number.',
      produces: 'evidence',
      input: z.strictObject({ kind: z.enum(['all', 'executable']).default('all').describe('Which sections.') }),
      result: z.strictObject({ count: z.number().int().min(0) }),
      examples: [{ input: {} }, { input: { kind: 'executable' } }],
      effects: { ...NO_EFFECTS, mutatesSession: true, idempotent: true },
      run: async () => {
        throw new Error('not called');
      },
    });
    const [tool] = advertiseCatalog([contract], 'full').tools;
    expect(tool!.annotations).toEqual({ destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(readHints(tool!.annotations)).toEqual(contract.annotations);
    expect(tool!.examples).toEqual([{}, { kind: 'executable' }]);
    expect((tool!.outputSchema['properties'] as Record<string, unknown>)['evidence_id']).toBeDefined();
    expect(tool!.portability.passed).toBe(true);
  });
});
