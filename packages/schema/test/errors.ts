import { expect } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import type { ReaError } from '@rea/evidence';

/** Runs `action`, expects a ReaError with `code` and `details.reason`, and returns it. */
export function expectReaError(action: () => unknown, code: string, reason: string): ReaError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(isReaError(caught)).toBe(true);
  const error = caught as ReaError;
  expect({ code: error.code, reason: error.details['reason'] }).toEqual({ code, reason });
  return error;
}
