import { describe } from '@jest/globals';

/**
 * `describe` when `reason` is null, otherwise a skipped `describe` — and the reason is printed, so a
 * gated suite never passes silently for a missing engine or data set.
 */
export function skipUnless(reason: string | null): typeof describe | typeof describe.skip {
  if (reason === null) return describe;
  console.warn(`skipped: ${reason}`);
  return describe.skip;
}
