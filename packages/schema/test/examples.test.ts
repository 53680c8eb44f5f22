import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { EvidenceRecordSchema, RetainedEvidenceRefSchema, sealEvidence } from '@rea/evidence';
import { advertiseTool, advertisedExample, isEmbeddedEvidence, projectExamples } from '@rea/schema';
import { convert, expectAcceptedEverywhere } from './validators.js';

function record(operation: string, normalized: Record<string, unknown>) {
  return sealEvidence({
    operation,
    subject: null,
    provider: { id: 'capstone', name: 'Capstone', version: '5.0.1' },
    analysis_profile: null,
    parameters: {},
    normalized_result: normalized,
    raw_result: null,
    confidence: 'observed',
    limitations: [],
    coverage: { status: 'complete', reasons: [] },
    locations: [],
    evidence_links: [],
  });
}

const first = record('binary_overview', { format: 'elf' });
const second = record('binary_overview', { format: 'pe' });
const either = z.union([RetainedEvidenceRefSchema, EvidenceRecordSchema]).describe('Reference or record.');
const compare = z.strictObject({ before: either, after: either });
const verify = z.strictObject({ record: EvidenceRecordSchema.describe('Inline record.') });

describe('advertised examples', () => {
  it('should recognise a complete Evidence record by schema_version 2 and its ev_ id', () => {
    expect(isEmbeddedEvidence(first)).toBe(true);
    expect(isEmbeddedEvidence({ ...first, schema_version: 1 })).toBe(false);
    expect(isEmbeddedEvidence({ schema_version: 2, evidence_id: 'ev_short' })).toBe(false);
    expect(isEmbeddedEvidence({ kind: 'retained-evidence', evidence_id: first.evidence_id })).toBe(false);
  });

  it('should advertise embedded records as their retained references where the tool accepts one', () => {
    const projection = advertisedExample({ input: { before: first, after: second } }, compare);
    expect(projection).toEqual({
      advertised: true,
      referenced: 2,
      input: {
        before: { kind: 'retained-evidence', evidence_id: first.evidence_id },
        after: { kind: 'retained-evidence', evidence_id: second.evidence_id },
      },
    });
  });

  it('should replace records nested in arrays', () => {
    const many = z.strictObject({ inputs: z.array(either).describe('Records.') });
    const projection = advertisedExample({ input: { inputs: [first, second] } }, many);
    expect(projection.advertised && projection.input).toEqual({
      inputs: [
        { kind: 'retained-evidence', evidence_id: first.evidence_id },
        { kind: 'retained-evidence', evidence_id: second.evidence_id },
      ],
    });
  });

  it('should keep an example that can only carry inline Evidence out of the advertisement', () => {
    expect(advertisedExample({ input: { record: first } }, verify)).toEqual({
      advertised: false,
      reason: 'inline-evidence',
    });
    // One position takes a reference, the other only a record: the whole example stays unadvertised.
    const mixed = z.strictObject({ reference: either, record: EvidenceRecordSchema });
    expect(advertisedExample({ input: { reference: first, record: second } }, mixed)).toEqual({
      advertised: false,
      reason: 'inline-evidence',
    });
  });

  it('should honour advertised: false, refuse invalid examples and drop duplicates', () => {
    const input = z.strictObject({ path: z.string().min(1).describe('Path.') });
    const { advertised, projections } = projectExamples(
      [
        { input: { path: '/a' } },
        { input: { path: '/b' }, advertised: false },
        { input: { path: '' } },
        { input: { path: '/a' }, description: 'same again' },
        { input: { path: '/c' } },
      ],
      input,
    );
    expect(advertised).toEqual([{ path: '/a' }, { path: '/c' }]);
    expect(projections.map((p) => (p.advertised ? 'yes' : p.reason))).toEqual([
      'yes',
      'not-advertised',
      'invalid',
      'duplicate',
      'yes',
    ]);
  });

  it('should de-duplicate examples that differ only in the records they embed by value', () => {
    const { advertised } = projectExamples(
      [
        { input: { before: { kind: 'retained-evidence', evidence_id: first.evidence_id }, after: second } },
        { input: { before: first, after: second } },
      ],
      compare,
    );
    expect(advertised).toHaveLength(1);
  });

  it('should put advertised examples on the full input schema root, valid there and canonically', () => {
    const tool = {
      name: 'compare_evidence',
      title: 'Compare',
      description: 'Compares two Evidence records.',
      input: compare,
      output: z.strictObject({ same: z.boolean() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      examples: [{ input: { before: first, after: second } }, { input: { before: first, after: first } }],
    };
    for (const profile of ['full', 'compact'] as const) {
      const advertised = advertiseTool(tool, profile);
      expect(advertised.examples).toHaveLength(2);
      expect(JSON.stringify(advertised.inputSchema)).not.toContain('"schema_version":2,');
      if (profile === 'full') expect(advertised.inputSchema['examples']).toEqual(advertised.examples);
      else expect(advertised.inputSchema).not.toHaveProperty('examples');
      const converted = convert(advertised.inputSchema);
      for (const example of advertised.examples) expectAcceptedEverywhere(converted, compare, example);
    }
  });
});
