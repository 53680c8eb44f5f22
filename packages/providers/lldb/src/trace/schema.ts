import { z } from 'zod';
import { JsonObjectSchema } from '@rea/evidence';

/** Input of `observe_native_calls`. */
export const TraceInputSchema = z.strictObject({
  executable: z.string().min(1).describe('Absolute path of the program to launch under LLDB.'),
  args: z.array(z.string().max(4096)).max(256).default([]).describe('Arguments.'),
  env: z.record(z.string(), z.string()).default({}).describe('Variables added to the environment.'),
  cwd: z.string().min(1).optional().describe('Working directory (absolute).'),
  targets: z
    .array(
      z.strictObject({
        kind: z.enum(['function', 'import', 'address']).describe('function: main module; import: any library.'),
        name: z.string().min(1).max(512).describe('Symbol name, or a 0x file address in the main module.'),
        arguments: z.number().int().min(0).max(6).default(0).describe('Integer arguments to record by the ABI.'),
        string_arguments: z
          .array(z.number().int().min(0).max(5))
          .max(6)
          .default([])
          .describe('Arguments read as C strings.'),
      }),
    )
    .min(1)
    .max(64)
    .describe('What to trace.'),
  returns: z.boolean().default(false).describe('Record return values.'),
  backtrace_depth: z.number().int().min(0).max(32).default(0).describe('Caller frames per event.'),
  max_events: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(1000)
    .describe('Detailed events kept; calls are always counted.'),
  max_string_bytes: z.number().int().min(1).max(4096).default(256).describe('Bound per string argument.'),
  max_event_bytes: z.number().int().min(1024).max(16_777_216).default(4_194_304).describe('Bound on recorded events.'),
  deadline_ms: z
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .default(120_000)
    .describe('Tracing deadline; reached: the target is killed.'),
  attach: z
    .strictObject({
      after_output: z
        .string()
        .min(1)
        .max(1024)
        .optional()
        .describe('JavaScript regular expression awaited on stdout before attaching; default: attach at once.'),
    })
    .optional()
    .describe('REA starts the program (own process group) and LLDB attaches to that PID: calls before are not seen.'),
});

/** The parsed input of `observe_native_calls`. */
export type TraceInput = z.output<typeof TraceInputSchema>;

const StreamSchema = z.strictObject({ text: z.string(), bytes: z.number().int(), truncated: z.boolean() });

/** `normalized_result` of `observe_native_calls`. */
export const TraceResultSchema = z.strictObject({
  abi: z.enum(['x86-64-sysv', 'aarch64-aapcs64']),
  targets: z.array(
    z.strictObject({
      kind: z.string(),
      name: z.string(),
      status: z.enum(['traced', 'not-found']),
      locations: z.array(z.string()),
      calls: z.number().int(),
      indirect_in: z
        .array(z.string())
        .describe('Modules where the name is an IFUNC (GNU indirect function): its run-time choice is not traced.'),
    }),
  ),
  started_at: z.string().describe('Wall-clock UTC time tracing began (ISO 8601).'),
  attached_pid: z.number().int().nullable().describe('The PID LLDB attached to (attach), else null.'),
  emulator: z.string().nullable().describe('The user-mode emulator that ran a foreign-architecture program.'),
  events: z
    .array(JsonObjectSchema)
    .describe('target, thread, tid, t_ms (since started_at), at (UTC), args, strings, backtrace, return.'),
  events_dropped: z.number().int(),
  strings_cut: z.number().int(),
  forks: z
    .number()
    .int()
    .describe('Calls to fork() and vfork() seen: LLDB follows the parent, so calls in the children are not traced.'),
  exit_code: z.number().int().nullable(),
  crash: JsonObjectSchema.nullable().describe(
    'The signal that ended the process (exit_code null): signal, fault_address, pc, thread, description, taken where it arrived.',
  ),
  stopped_by: z.enum(['exit', 'crash', 'deadline']),
  elapsed_ms: z.number().int(),
  stdout: StreamSchema,
  stderr: StreamSchema,
});

/** The observation of one trace. */
export type TraceResult = z.infer<typeof TraceResultSchema>;
