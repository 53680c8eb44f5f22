// jest globalSetup: the whole run gets a private temporary directory (TMPDIR, inherited by the test
// workers and every process they start), so that globalTeardown can tell what this run left behind,
// whatever else runs on the machine meanwhile. Compiled fixtures stay in the shared per-user cache.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup() {
  const base = tmpdir();
  process.env.REA_TEST_FIXTURE_ROOT ??= join(base, `rea-fixtures-${process.getuid?.() ?? 'user'}`);
  const root = mkdtempSync(join(base, 'jest-run-'));
  process.env.TMPDIR = root;
  globalThis.__reaTemporaryRoot = root;
}
