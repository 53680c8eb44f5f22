import { z } from 'zod';
import { JsonObjectSchema, ReaError, RetainedEvidenceRefSchema, parseEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import type { CaptureResult } from '../capture/schema.js';
import { LLDB_PROVIDER, lldbProfile } from '../version.js';

const CaptureRefSchema = z
  .union([RetainedEvidenceRefSchema, JsonObjectSchema])
  .describe('capture_process_scenario Evidence: a retained reference or inline.');

const InputSchema = z.strictObject({
  left: CaptureRefSchema,
  right: CaptureRefSchema,
  normalize: z
    .array(z.enum(['timestamps', 'pids', 'temp_paths']))
    .default(['timestamps', 'pids', 'temp_paths'])
    .describe('Volatile text replaced before comparing output.'),
});

/** One side's value of a compared field, in that field's own type. */
const ValueSchema = z.union([z.string(), z.number().int(), z.boolean(), z.array(z.string()), z.null()]);

const ResultSchema = z.strictObject({
  equal: z.boolean().describe('No differences (a different argv counts as one).'),
  differences: z
    .array(z.strictObject({ field: z.string(), left: ValueSchema, right: ValueSchema }))
    .describe(
      'argv (string array: file name of the program, then arguments), exit_code (integer or null), signal (string or null), deadline_reached (boolean), actions, stdout, stderr, transcript, screen (strings).',
    ),
  elapsed_delta_ms: z.number().int().nullable(),
});

type Value = z.infer<typeof ValueSchema>;

const RULES = {
  timestamps: [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<timestamp>'],
  pids: [/\b(pid|PID|process)[ :=#]*\d+/g, '$1 <pid>'],
  temp_paths: [/\/(?:tmp|var\/tmp|var\/folders)\/[^\s'"]+/g, '<temp>'],
} as const;

function capture(value: unknown, side: string, context: ToolContext): EvidenceRecord {
  const ref = RetainedEvidenceRefSchema.safeParse(value);
  let record: EvidenceRecord;
  if (ref.success) {
    if (context.ledger === null) {
      throw new ReaError('not_found', `Retained Evidence ${ref.data.evidence_id} cannot be resolved here.`, {
        remediation: 'Pass the capture inline.',
        details: { reason: 'missing', evidence_id: ref.data.evidence_id },
      });
    }
    record = context.ledger.resolve(ref.data);
  } else {
    record = parseEvidence(value, side);
  }
  if (record.operation !== 'capture_process_scenario') {
    throw new ReaError('invalid_request', `${side} is ${record.operation} Evidence, not capture_process_scenario.`, {
      details: { reason: 'wrong-operation', side, operation: record.operation },
    });
  }
  return record;
}

/** `compare_process_captures`: output, exit, signal and timing differences of two captures. */
export const compareProcessCapturesTool = defineTool({
  name: 'compare_process_captures',
  title: 'Compare process captures',
  description:
    'Compares two capture_process_scenario results (retained or inline), e.g. two builds running one scenario, without running anything: argv (program file name and arguments; a difference is reported and the rest still compared), exit code, signal, action outcomes, deadline, stdout/stderr/transcript and final screen after normalizing timestamps, PIDs and temp paths; and the elapsed time difference. Each difference gives both values typed (exit_code: integer or null).',
  input: InputSchema,
  result: ResultSchema,
  examples: [
    {
      input: {
        left: { kind: 'retained-evidence', evidence_id: `ev_${'1'.repeat(64)}` },
        right: { kind: 'retained-evidence', evidence_id: `ev_${'2'.repeat(64)}` },
      },
      description: 'Two runs of one scenario, retained earlier.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const leftRecord = capture(input.left, 'left', context);
    const rightRecord = capture(input.right, 'right', context);
    const left = leftRecord.normalized_result as unknown as CaptureResult;
    const right = rightRecord.normalized_result as unknown as CaptureResult;
    const clean = (text: string | undefined | null) =>
      input.normalize.reduce((t, rule) => t.replace(RULES[rule][0], RULES[rule][1]), text ?? '');
    const fields: Array<[string, (c: CaptureResult) => Value]> = [
      // The program's directory is left out: two builds of one program usually sit in different ones.
      ['argv', (c) => c.argv.map((arg, i) => (i === 0 ? (arg.split('/').pop() ?? arg) : clean(arg)))],
      ['exit_code', (c) => c.exit_code],
      ['signal', (c) => c.signal],
      ['deadline_reached', (c) => c.deadline_reached],
      ['actions', (c) => c.actions.map((a) => `${a.type}:${a.outcome}`).join(',')],
      ['stdout', (c) => clean(c.stdout?.text)],
      ['stderr', (c) => clean(c.stderr?.text)],
      ['transcript', (c) => clean(c.transcript?.text)],
      ['screen', (c) => clean(JSON.stringify(c.screen?.['lines'] ?? null))],
    ];
    const differences = fields
      .map(([field, read]) => ({ field, left: read(left), right: read(right) }))
      .filter((d) => JSON.stringify(d.left) !== JSON.stringify(d.right));
    const delta = left.elapsed_ms === null || right.elapsed_ms === null ? null : right.elapsed_ms - left.elapsed_ms;
    return {
      subject: null,
      provider: LLDB_PROVIDER,
      analysis_profile: lldbProfile('capture-comparison', { normalize: input.normalize }),
      parameters: { normalize: input.normalize },
      normalized_result: { equal: differences.length === 0, differences, elapsed_delta_ms: delta },
      raw_result: null,
      confidence: 'derived' as const,
      limitations: [],
      coverage: { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [...new Set([leftRecord.evidence_id, rightRecord.evidence_id])],
    };
  },
});
