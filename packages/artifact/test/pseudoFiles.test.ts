// A file of /proc or /sys states a size (0, or a page) that is not what reading it gives: the listing's
// size is what was read and hashed, so the two agree with each other and with a read of the file.
import { expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { skipUnless } from '@rea/test-helpers';
import { inspectArtifact } from '@rea/artifact';

const FILE = '/sys/kernel/mm/transparent_hugepage/enabled';

skipUnless(existsSync(FILE) ? null : `${FILE} is absent`)('a file whose stated size is not its content', () => {
  it('should give the size of the bytes it hashed', async () => {
    const bytes = readFileSync(FILE);
    // The premise: the size stat states differs from what a read gives.
    expect(statSync(FILE).size).not.toBe(bytes.length);
    const result = await inspectArtifact(FILE);
    const entry = result.inventory.entries[0]!;
    expect(entry.size).toBe(bytes.length);
    expect(entry.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(result.subject).toMatchObject({ size: bytes.length, sha256: entry.sha256 });
    expect(result.inventory.total_size).toBe(bytes.length);
  });
});
