import { z } from 'zod';
import { JsonObjectSchema } from '@rea/evidence';

/** Signals a scenario may send to its process. */
export const SIGNALS = [
  'SIGHUP',
  'SIGINT',
  'SIGQUIT',
  'SIGTERM',
  'SIGKILL',
  'SIGUSR1',
  'SIGUSR2',
  'SIGCONT',
  'SIGSTOP',
  'SIGWINCH',
] as const;

const SignalSchema = z.enum(SIGNALS);

const ActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('write_stdin'), data: z.string().max(65_536).describe('Text to write.') }),
  z.strictObject({
    type: z.literal('wait_for_output'),
    pattern: z
      .string()
      .min(1)
      .max(1024)
      .describe('JavaScript regular expression searched in output since the action began.'),
    stream: z.enum(['stdout', 'stderr', 'any']).default('any').describe('Default any (the transcript with pty).'),
    timeout_ms: z.number().int().min(1).max(600_000).describe('How long to wait.'),
  }),
  z.strictObject({ type: z.literal('wait'), duration_ms: z.number().int().min(0).max(600_000).describe('Pause.') }),
  z.strictObject({ type: z.literal('signal'), signal: SignalSchema.describe('Sent to the launched process.') }),
  z.strictObject({
    type: z.literal('resize'),
    columns: z.number().int().min(1).max(1000).describe('Terminal columns (pty only).'),
    rows: z.number().int().min(1).max(1000).describe('Terminal rows.'),
  }),
  z.strictObject({ type: z.literal('close_stdin') }),
]);

/** One scenario action. */
export type Action = z.infer<typeof ActionSchema>;

/** Input of `capture_process_scenario`. */
export const CaptureInputSchema = z.strictObject({
  executable: z.string().min(1).describe('Absolute path of the program to run.'),
  args: z.array(z.string().max(4096)).max(256).default([]).describe('Arguments.'),
  env: z.record(z.string(), z.string()).default({}).describe('Variables added to the environment.'),
  cwd: z.string().min(1).optional().describe('Working directory (absolute).'),
  pty: z
    .union([
      z.boolean(),
      z.strictObject({ columns: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }),
    ])
    .default(false)
    .describe('Run on a pseudo-terminal (true: 80x24) and return the transcript and final screen.'),
  actions: z.array(ActionSchema).max(256).default([]).describe('Performed in order once the process has started.'),
  then: z
    .enum(['wait_for_exit', 'cleanup'])
    .default('wait_for_exit')
    .describe('After the actions: wait for exit until the deadline, or clean up at once.'),
  deadline_ms: z.number().int().min(1).max(3_600_000).default(30_000).describe('Scenario deadline; reached: cleanup.'),
  max_output_bytes: z.number().int().min(0).max(16_777_216).default(1_048_576).describe('Budget per stream.'),
  cleanup: z
    .strictObject({
      signal: z.enum(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL']).default('SIGTERM'),
      grace_ms: z.number().int().min(0).max(60_000).default(2000),
    })
    .default({ signal: 'SIGTERM', grace_ms: 2000 })
    .describe('Signal sent to what is left, then SIGKILL after grace_ms.'),
});

/** The parsed input of `capture_process_scenario`. */
export type CaptureInput = z.output<typeof CaptureInputSchema>;

const StreamSchema = z.strictObject({ text: z.string(), bytes: z.number().int(), truncated: z.boolean() });

/** One signal REA attempted and what became of it. */
export const SignalAttemptSchema = z.strictObject({
  signal: z.string(),
  pid: z.number().int(),
  target: z.enum(['process', 'group', 'descendant']),
  phase: z.enum(['action', 'cleanup']),
  result: z.enum(['delivered', 'not-running', 'not-owned', 'denied']),
  at_ms: z.number().int(),
});

/** A signal attempt. */
export type SignalAttempt = z.infer<typeof SignalAttemptSchema>;

const ActionOutcomeSchema = z.strictObject({
  index: z.number().int(),
  type: z.string(),
  outcome: z.enum(['done', 'matched', 'timeout', 'exited', 'skipped']),
  started_ms: z.number().int(),
  elapsed_ms: z.number().int(),
  detail: z.string().nullable(),
});

/** `normalized_result` of `capture_process_scenario`. */
export const CaptureResultSchema = z.strictObject({
  argv: z.array(z.string()),
  pty: z.strictObject({ columns: z.number().int(), rows: z.number().int() }).nullable(),
  actions: z.array(ActionOutcomeSchema),
  stdout: StreamSchema.nullable().describe('null with pty: see transcript.'),
  stderr: StreamSchema.nullable(),
  transcript: StreamSchema.nullable(),
  screen: JsonObjectSchema.nullable().describe('lines, cursor.'),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  elapsed_ms: z.number().int().nullable(),
  deadline_reached: z.boolean(),
  signals: z.array(SignalAttemptSchema),
  descendants_seen: z.array(JsonObjectSchema).describe('pid, comm.'),
  cleanup: z.strictObject({ status: z.enum(['not-needed', 'complete']), signals_sent: z.number().int() }),
});

/** The observation of one scenario. */
export type CaptureResult = z.infer<typeof CaptureResultSchema>;
