/**
 * The closed list of REA error codes. Every boundary (library, MCP server, CLI) speaks only these.
 * Each entry says when the code is raised, what `details` holds, whether a retry can help, and the
 * default remediation offered to the caller.
 */
export const ERROR_CODES = {
  invalid_request: {
    when: 'The input does not match the tool or function contract (schema, cross-field rule, unsupported value).',
    details: '`issues`: array of { path, message } for each failing input path; `reason` for non-schema refusals.',
    retryable: false,
    remediation: 'Correct the input as the issues describe and call again.',
  },
  not_found: {
    when: 'A named thing does not exist: a file, an archive entry, a procedure, or a retained Evidence reference.',
    details:
      '`reason` ("missing" for retained references), and the exact identifier (`evidence_id`, `path`, `address`, …).',
    retryable: false,
    remediation: 'Check the identifier; for retained Evidence, repeat its producer or import a bundle that holds it.',
  },
  capability_unavailable: {
    when: 'The bound provider, host or client lacks a capability this operation needs.',
    details: '`capability`, `provider_id` when bound, and `alternatives` (providers or tools that have it).',
    retryable: false,
    remediation: 'Use a provider that declares the capability, or the alternative the details name.',
  },
  provider_unavailable: {
    when: 'The selected provider cannot run on this host (engine not installed, wrong version, failed probe).',
    details: '`provider_id`, `reason`, and what was probed.',
    retryable: false,
    remediation: 'Install or configure the engine as the reason says, or choose another provider.',
  },
  provider_selection: {
    when: 'A provider choice (`provider_id`, `--provider`, REA_ANALYSIS_PROVIDER) is unknown, unavailable, unsupported for the target, or ambiguous.',
    details:
      '`requested`, `reason` (unknown | unavailable | unsupported | ambiguous), `candidates`: [{ id, available, reason }].',
    retryable: false,
    remediation: 'Pass one of the listed candidate ids as provider_id.',
  },
  provider_timeout: {
    when: 'A provider did not finish within its deadline (engine startup or a single request).',
    details: '`provider_id`, `deadline_ms`, `phase`, and any `partial_observation`.',
    retryable: true,
    remediation: 'Raise the deadline setting named in the message, or retry with a smaller request.',
  },
  target_unavailable: {
    when: 'The target cannot be read or used now: no active target, unreadable path, absent companion file.',
    details: '`path` or `target`, and `reason`.',
    retryable: false,
    remediation: 'Open a target first, or fix the path or its permissions.',
  },
  unsupported_target: {
    when: 'The target is readable but its format, architecture or variant is not supported by this operation.',
    details: '`format`, `architecture`, `reason`, and `slices` for a universal binary.',
    retryable: false,
    remediation: 'Select a supported slice or format, or use a provider that supports it.',
  },
  cancelled: {
    when: 'The caller cancelled the operation (MCP notifications/cancelled, SIGINT or SIGTERM, an AbortSignal).',
    details: '`phase` at cancellation and `cleanup` status.',
    retryable: true,
    remediation: 'Call again when ready; nothing from the cancelled call was recorded.',
  },
  cleanup_incomplete: {
    when: 'Owned resources (processes, temp directories, sockets, mounts) remain after cleanup.',
    details:
      '`remaining`: the owned resource kinds still present, with identifiers; `partial_observation` when one exists.',
    retryable: false,
    remediation: 'Remove the listed owned resources (or wait for them to exit) before retrying.',
  },
  resource_constraint: {
    when: 'A bound was reached: transport size, memory or ledger budget, file size, cpu.',
    details: '`resource` (transport | memory | file-size | cpu), `limit`, `observed`, and `reported_limits`.',
    retryable: false,
    remediation: 'Page the result, export it, or raise the named limit.',
  },
  artifact_integrity_mismatch: {
    when: 'Artifact bytes contradict their declared integrity (ZIP CRC-32 or size, ASAR hashes).',
    details: '`path` (logical), `declared`, `observed`, `algorithm`, `unpacked`.',
    retryable: false,
    remediation:
      'Rerun with integrity_policy "record-and-continue" to continue past the contradiction, or obtain intact bytes.',
  },
  evidence_integrity_mismatch: {
    when: 'An Evidence record or profile does not hash to the id or digest it carries.',
    details: '`declared` and `computed` ids or digests, and `field`.',
    retryable: false,
    remediation: 'Discard the record and re-run its producer; never edit sealed records by hand.',
  },
  access_denied: {
    when: 'The host refused an operation (file permissions, OS privacy controls, a refused bind).',
    details: '`path` or `resource`, and the host `reason`.',
    retryable: false,
    remediation: 'Grant the permission the reason names, or choose another path.',
  },
  configuration_invalid: {
    when: 'A setting (environment variable, flag, config file) has a value outside its accepted form.',
    details: '`variable`, `value`, `accepted`.',
    retryable: false,
    remediation: 'Set the variable to a value of the accepted form, or unset it for the default.',
  },
  execution_failure: {
    when: 'An engine, child process or provider request failed while running.',
    details: '`provider_id`, `exit_code`, `signal`, `stderr_tail`, and `partial_observation` where available.',
    retryable: true,
    remediation: 'Read the reason; retry, or close and reopen the target for a fresh engine.',
  },
  internal: {
    when: 'A defect in REA: an unexpected exception or a result that violates its own schema.',
    details: '`cause`: { name, message } of the original throwable (never a stack).',
    retryable: false,
    remediation: 'Report it with the diagnostic; retrying is unlikely to help.',
  },
} as const satisfies Record<string, { when: string; details: string; retryable: boolean; remediation: string }>;

/** A stable REA error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Every error code, sorted. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES).sort() as ErrorCode[];

/** True when `value` is one of the closed list of error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}
