// An archive can name tens of thousands of entries that cannot be extracted safely: each is a coverage
// reason of its own. They are listed once each, in entry order, with a repeated reason listed once, and
// the inventory stays linear in their number (each new reason was looked up in the list of those before
// it: 50,000 such names took ~30 s).
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';

const NAMES = 50_000;

describe('issue 15: an archive of many unsafe names', () => {
  it('should list one coverage reason per unsafe name, in order, and each once', async () => {
    const specs = Array.from({ length: NAMES }, (_, i) => ({
      name: `../e${i}`,
      data: Buffer.alloc(0),
      method: 0 as const,
    }));
    // A name given twice gives the same reason: listed once.
    specs.push({ name: '../e7', data: Buffer.alloc(0), method: 0 as const });
    await withTempDir(async (tmp) => {
      const path = join(tmp, 'unsafe.zip');
      writeFileSync(path, buildZip(specs));
      const outcome = await inspectArtifact(path);
      const reasons = outcome.coverage.reasons.filter((r) => r.startsWith('unsafe entry path'));
      expect(reasons).toHaveLength(NAMES);
      expect(reasons[0]).toContain('"../e0"');
      expect(reasons[NAMES - 1]).toContain(`"../e${NAMES - 1}"`);
      expect(new Set(reasons).size).toBe(NAMES);
      expect(outcome.coverage.status).toBe('partial');
    });
  }, 60_000);
});
