import { describe } from '@jest/globals';

/**
 * `describe` when `reason` is null, otherwise a skipped `describe` — and the reason is printed, so a
 * gated suite never passes silently for a missing engine or data set. It goes straight to stderr:
 * jest drops the console output of a file whose tests are all skipped when it runs files in workers.
 */
export function skipUnless(reason: string | null): typeof describe | typeof describe.skip {
  if (reason === null) return describe;
  process.stderr.write(`skipped: ${reason}\n`);
  return describe.skip;
}
