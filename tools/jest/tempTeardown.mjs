// jest globalTeardown: fails the run when REA-named entries (rea-*, .rea-*) remain in the run's
// private temporary directory (see tempSetup.mjs): a test, or the product it drives, did not clean
// up after itself. The directory is removed either way.
import { readdirSync, rmSync } from 'node:fs';

const REA_NAMED = /^\.?rea[-_.]/i;

export default function teardown() {
  const root = globalThis.__reaTemporaryRoot;
  if (typeof root !== 'string') return;
  let left;
  try {
    left = readdirSync(root)
      .filter((name) => REA_NAMED.test(name))
      .sort();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  if (left.length > 0) {
    throw new Error(
      `The test run left ${left.length} REA-named temporary entr${left.length === 1 ? 'y' : 'ies'} behind: ${left.join(', ')}. ` +
        'Every test removes what it creates, and the product removes its own staging and output on failure and cancel.',
    );
  }
}
