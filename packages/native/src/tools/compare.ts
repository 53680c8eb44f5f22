import { EvidenceRecordSchema, ReaError, RetainedEvidenceRefSchema, parseEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { AddressSchema } from '../address.js';
import { FunctionDossierSchema } from './dossier.js';
import type { FunctionDossier } from './dossier.js';
import { READ_EFFECTS, defineTool, z } from './common.js';

const SideSchema = z
  .union([RetainedEvidenceRefSchema, EvidenceRecordSchema])
  .describe(
    'An analyze_function Evidence record: complete inline, or {"kind":"retained-evidence","evidence_id":…} retained by this session.',
  );

const SetDiffSchema = z.strictObject({
  common: z.array(z.string()),
  only_left: z.array(z.string()),
  only_right: z.array(z.string()),
});

const SideSummarySchema = z.strictObject({
  evidence_id: z.string(),
  procedure: AddressSchema,
  name: z.string(),
  subject_sha256: z.string().nullable(),
  size: z.number().int().nonnegative(),
  instruction_count: z.number().int().nonnegative(),
  basic_block_count: z.number().int().nonnegative(),
});

function resolve(
  side: z.output<typeof SideSchema>,
  context: ToolContext,
  label: string,
): { record: EvidenceRecord; dossier: FunctionDossier } {
  let record: EvidenceRecord;
  if ('kind' in side && side.kind === 'retained-evidence') {
    if (context.ledger === null) {
      throw new ReaError(
        'capability_unavailable',
        'This host keeps no Evidence ledger, so retained references cannot be resolved.',
        {
          remediation: 'Pass the complete analyze_function Evidence inline.',
          details: { capability: 'ledger', alternatives: ['inline-evidence'] },
        },
      );
    }
    record = context.ledger.resolve(side);
  } else record = parseEvidence(side, label);
  if (record.operation !== 'analyze_function') {
    throw new ReaError('invalid_request', `${label} is ${record.operation} Evidence, not analyze_function Evidence.`, {
      details: { reason: 'wrong-operation', path: label, operation: record.operation },
    });
  }
  const parsed = FunctionDossierSchema.safeParse(record.normalized_result);
  if (!parsed.success) {
    throw new ReaError('invalid_request', `${label} does not hold a function dossier.`, {
      details: { reason: 'invalid-dossier', path: label },
    });
  }
  return { record, dossier: parsed.data };
}

function diff(left: Iterable<string>, right: Iterable<string>) {
  const l = new Set(left);
  const r = new Set(right);
  const sorted = (xs: Iterable<string>) => [...xs].sort();
  return {
    common: sorted([...l].filter((x) => r.has(x))),
    only_left: sorted([...l].filter((x) => !r.has(x))),
    only_right: sorted([...r].filter((x) => !l.has(x))),
  };
}

function bigrams(dossier: FunctionDossier): Map<string, number> {
  const ops = (dossier.assembly?.instructions ?? []).map((i) => i.mnemonic);
  const counts = new Map<string, number>();
  for (let i = 0; i < ops.length; i += 1) {
    const key = `${ops[i]} ${ops[i + 1] ?? '$'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Dice similarity of the mnemonic-bigram multisets: 1 for identical instruction shapes, 0 for disjoint. */
function similarity(a: FunctionDossier, b: FunctionDossier): number {
  const x = bigrams(a);
  const y = bigrams(b);
  let shared = 0;
  let total = 0;
  for (const [k, v] of x) {
    shared += Math.min(v, y.get(k) ?? 0);
    total += v;
  }
  for (const v of y.values()) total += v;
  return total === 0 ? 1 : Math.round(((2 * shared) / total) * 10000) / 10000;
}

function summary(record: EvidenceRecord, d: FunctionDossier) {
  return {
    evidence_id: record.evidence_id,
    procedure: d.procedure.address,
    name: d.procedure.name,
    subject_sha256: record.subject?.sha256 ?? null,
    size: d.procedure.size,
    instruction_count: d.procedure.instruction_count,
    basic_block_count: d.procedure.basic_block_count,
  };
}

function calleeNames(d: FunctionDossier): string[] {
  return (d.callees ?? []).map((c) => c.name ?? c.procedure);
}

/** compare_functions: structural comparison of two analyze_function records. */
export const compareFunctions = defineTool({
  name: 'compare_functions',
  title: 'Compare functions',
  description:
    'Compares two analyze_function records (each complete inline Evidence or a retained reference): sizes, instruction and block counts, instruction-shape similarity, whether the instruction text is identical, and callee, string and import differences. Needs no open target.',
  input: z.strictObject({ left: SideSchema, right: SideSchema }),
  result: z.strictObject({
    left: SideSummarySchema,
    right: SideSummarySchema,
    same_subject: z.boolean(),
    identical_instructions: z.boolean(),
    mnemonic_similarity: z.number().min(0).max(1),
    callees: SetDiffSchema,
    strings: SetDiffSchema,
    imports: SetDiffSchema,
    limitations_carried: z.array(z.string()),
  }),
  examples: [
    {
      input: {
        left: { kind: 'retained-evidence', evidence_id: `ev_${'1'.repeat(64)}` },
        right: { kind: 'retained-evidence', evidence_id: `ev_${'2'.repeat(64)}` },
      },
    },
  ],
  effects: READ_EFFECTS,
  produces: 'evidence',
  run: async (input, context) => {
    const left = resolve(input.left, context, 'left');
    const right = resolve(input.right, context, 'right');
    const text = (d: FunctionDossier) =>
      (d.assembly?.instructions ?? []).map((i) => `${i.mnemonic} ${i.operands}`).join('\n');
    const carried = [
      ...left.dossier.unavailable.map((f) => `left: ${f} unavailable`),
      ...right.dossier.unavailable.map((f) => `right: ${f} unavailable`),
    ];
    const sameSubject = left.record.subject !== null && left.record.subject.sha256 === right.record.subject?.sha256;
    return {
      subject: sameSubject ? left.record.subject : null,
      provider: left.record.provider,
      analysis_profile: left.record.analysis_profile,
      parameters: {
        left: left.record.evidence_id,
        right: right.record.evidence_id,
      },
      normalized_result: {
        left: summary(left.record, left.dossier),
        right: summary(right.record, right.dossier),
        same_subject: sameSubject,
        identical_instructions: text(left.dossier) === text(right.dossier) && left.dossier.assembly !== null,
        mnemonic_similarity: similarity(left.dossier, right.dossier),
        callees: diff(calleeNames(left.dossier), calleeNames(right.dossier)),
        strings: diff(
          (left.dossier.strings ?? []).map((s) => s.value),
          (right.dossier.strings ?? []).map((s) => s.value),
        ),
        imports: diff(
          (left.dossier.api?.imports ?? []).map((a) => a.name),
          (right.dossier.api?.imports ?? []).map((a) => a.name),
        ),
        limitations_carried: carried,
      },
      raw_result: null,
      confidence: 'derived',
      limitations: carried.map((message) => ({ kind: 'capability-unavailable', message })),
      coverage: carried.length ? { status: 'partial', reasons: carried } : { status: 'complete', reasons: [] },
      locations: [],
      evidence_links: [left.record.evidence_id, right.record.evidence_id],
    };
  },
});
