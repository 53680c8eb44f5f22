import type { ErrorCode } from '@rea/evidence';

/**
 * The documented exit status of every outcome, keyed by error code. `0` is success. Statuses are
 * stable: scripts may branch on them. `130` (128 + SIGINT) is cancellation, whichever signal or
 * request caused it. Usage errors (unknown command, bad flag) are `invalid_request`, status 2.
 */
export const EXIT_CODES = {
  success: 0,
  internal: 1,
  invalid_request: 2,
  not_found: 3,
  configuration_invalid: 4,
  capability_unavailable: 5,
  provider_unavailable: 6,
  provider_selection: 7,
  provider_timeout: 8,
  target_unavailable: 9,
  unsupported_target: 10,
  resource_constraint: 11,
  artifact_integrity_mismatch: 12,
  evidence_integrity_mismatch: 13,
  access_denied: 14,
  execution_failure: 15,
  cleanup_incomplete: 16,
  cancelled: 130,
} as const satisfies Record<ErrorCode | 'success', number>;

/** The exit status for an error code (see {@link EXIT_CODES}). */
export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODES[code];
}
