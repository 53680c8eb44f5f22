import { z } from 'zod';
import { JsonObjectSchema, ReaError, RetainedEvidenceRefSchema } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { compareInventories, comparisonCoverage, inventoryOf } from '../compare.js';
import { ArtifactComparisonSchema } from '../schemas.js';
import { ARTIFACT_PROVIDER, artifactProfile } from './common.js';

const side = (which: string) =>
  z
    .union([RetainedEvidenceRefSchema, JsonObjectSchema])
    .describe(
      `The ${which} inspect_artifact Evidence: a {"kind":"retained-evidence","evidence_id":"ev_…"} reference, or the complete record inline.`,
    );

const CompareInputSchema = z.strictObject({ left: side('left (older)'), right: side('right (newer)') });

function resolveSide(value: unknown, context: ToolContext): unknown {
  const ref = RetainedEvidenceRefSchema.safeParse(value);
  if (!ref.success) return value;
  if (context.ledger === null) {
    throw new ReaError(
      'not_found',
      `Retained Evidence ${ref.data.evidence_id} cannot be resolved: this host keeps no session ledger.`,
      {
        details: { reason: 'missing', evidence_id: ref.data.evidence_id },
      },
    );
  }
  const record: EvidenceRecord = context.ledger.resolve(ref.data);
  // A retained summary points at its complete parent, which the same ledger holds.
  const parent = (record.normalized_result as { view?: unknown; parent_evidence_id?: unknown } | null) ?? null;
  if (parent?.view === 'summary' && typeof parent.parent_evidence_id === 'string') {
    return context.ledger.resolve({ kind: 'retained-evidence', evidence_id: parent.parent_evidence_id });
  }
  return record;
}

/** `compare_artifacts`: entry-level comparison of two inventories; contradicted or unverified entries are never unchanged. */
export const compareArtifactsTool = defineTool({
  name: 'compare_artifacts',
  title: 'Compare artifacts',
  description:
    'Compares two inspect_artifact inventories (each a retained reference or complete inline Evidence) by logical path: added, removed, changed (with what differs: content, size, mode, symlink target, unpacked) and unchanged entries with their SHA-256. Entries whose bytes contradicted their declared integrity on either side are contradictions, and entries not read on a side or listed twice at one path are unverified, never unchanged; a partial input makes the comparison partial. Use it to see what changed between two versions of a package. Returns Evidence linked to both inputs.',
  input: CompareInputSchema,
  result: ArtifactComparisonSchema,
  examples: [
    {
      input: {
        left: { kind: 'retained-evidence', evidence_id: `ev_${'1'.repeat(64)}` },
        right: { kind: 'retained-evidence', evidence_id: `ev_${'2'.repeat(64)}` },
      },
      description: 'Compare two inventories retained earlier in this session.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const left = await inventoryOf(resolveSide(input.left, context), 'left', context.signal);
    const right = await inventoryOf(resolveSide(input.right, context), 'right', context.signal);
    const comparison = await compareInventories(left, right, context.signal);
    const { coverage, limitations } = comparisonCoverage(left, right, comparison);
    return {
      subject: null,
      provider: ARTIFACT_PROVIDER,
      analysis_profile: artifactProfile('comparison', {}),
      parameters: { left_evidence_id: left.evidenceId, right_evidence_id: right.evidenceId },
      normalized_result: comparison,
      raw_result: null,
      confidence: 'derived' as const,
      limitations,
      coverage,
      locations: [],
      evidence_links: [left.evidenceId, right.evidenceId].sort(),
    };
  },
});
