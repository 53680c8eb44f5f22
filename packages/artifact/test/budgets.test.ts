import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip, tinyEntriesZip } from './helpers/zipWriter.js';
import { simpleAsar } from './helpers/asarWriter.js';
import { run } from './helpers/exec.js';

function nestedZip(levels: number): Buffer {
  let bytes = buildZip([{ name: 'core.txt', data: Buffer.from('core') }]);
  for (let level = levels; level >= 1; level -= 1) {
    bytes = buildZip([
      { name: `level${level}.txt`, data: Buffer.from(String(level)) },
      { name: 'inner.zip', data: bytes, method: 0 },
    ]);
  }
  return bytes;
}

describe('nested containers and budgets', () => {
  it('should expand ZIP in ZIP up to max_depth and say where it stopped', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'deep.zip');
      writeFileSync(file, nestedZip(8));
      const { inventory, coverage } = await inspectArtifact(file);
      expect(coverage.status).toBe('partial');
      const chain = (n: number): string => Array.from({ length: n }, () => 'inner.zip').join('!/');
      expect(inventory.entries.some((e) => e.path === `${chain(4)}!/level5.txt`)).toBe(true);
      expect(inventory.entries.some((e) => e.path === `${chain(5)}!/level6.txt`)).toBe(false);
      expect(inventory.nested_containers.filter((n) => !n.expanded)).toEqual([
        { path: chain(5), format: 'zip', expanded: false, reason: 'depth budget max_depth 4 reached' },
      ]);
      expect(coverage.reasons.join('\n')).toContain('max_depth 4');
      const shallow = await inspectArtifact(file, { budgets: { max_depth: 0 } });
      expect(shallow.inventory.entries.map((e) => e.path)).toEqual(['level1.txt', 'inner.zip']);
      expect(shallow.inventory.entries[1]!.nested_format).toBe('zip');
    });
  });

  it('should expand an ASAR held in a ZIP', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'app.zip');
      writeFileSync(
        file,
        buildZip([{ name: 'resources/app.asar', data: simpleAsar({ 'main.js': Buffer.from('1') }) }]),
      );
      const { inventory, coverage } = await inspectArtifact(file);
      expect(coverage.status).toBe('complete');
      expect(inventory.entries.map((e) => [e.path, e.integrity])).toEqual([
        ['resources/app.asar', 'verified'],
        ['resources/app.asar!/main.js', 'verified'],
      ]);
    });
  });

  it('should not hold a nested container larger than max_nested_bytes', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'n.zip');
      writeFileSync(file, nestedZip(1));
      const { inventory, coverage } = await inspectArtifact(file, { budgets: { max_nested_bytes: 10 } });
      expect(coverage.status).toBe('partial');
      expect(inventory.nested_containers).toEqual([
        {
          path: 'inner.zip',
          format: 'zip',
          expanded: false,
          reason: 'larger than the room left in max_nested_bytes 10',
        },
      ]);
    });
  });

  it('should count max_nested_bytes along the whole chain of held containers', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'chain.zip');
      writeFileSync(file, nestedZip(2));
      const outer = await inspectArtifact(file);
      const first = outer.inventory.entries.find((e) => e.path === 'inner.zip')!;
      const second = outer.inventory.entries.find((e) => e.path === 'inner.zip!/inner.zip')!;
      expect(second.size).toBeLessThan(first.size);
      // Room for the first container alone: the second fits the budget by itself, but not beside the first.
      const { inventory } = await inspectArtifact(file, { budgets: { max_nested_bytes: first.size + 10 } });
      expect(inventory.nested_containers.map((n) => [n.path, n.expanded])).toEqual([
        ['inner.zip!/inner.zip', false],
        ['inner.zip', true],
      ]);
    });
  });

  it('should stop hashing at max_bytes and leave later entries unread', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'b.zip');
      writeFileSync(file, buildZip(['a', 'b', 'c'].map((name) => ({ name, data: Buffer.alloc(1000, name) }))));
      const { inventory, coverage } = await inspectArtifact(file, { budgets: { max_bytes: 1500 } });
      expect(inventory.entries.map((e) => e.integrity)).toEqual(['verified', 'unchecked', 'unchecked']);
      expect(coverage.reasons.join()).toContain('max_bytes 1500');
    });
  });

  it('should bound a million tiny entries by max_entries with partial coverage', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'million.zip');
      writeFileSync(file, tinyEntriesZip(1_000_000));
      expect(run('sh', ['-c', `unzip -Z1 ${file} | wc -l`]).trim()).toBe('1000000');
      const { inventory, coverage } = await inspectArtifact(file);
      expect(inventory.entry_count).toBe(100_000);
      expect(coverage.status).toBe('partial');
      expect(coverage.reasons).toEqual([expect.stringContaining('max_entries 100000')]);
      const small = await inspectArtifact(file, { budgets: { max_entries: 10 } });
      expect(small.inventory.entries.map((e) => e.path)).toEqual([
        '0000',
        '0001',
        '0002',
        '0003',
        '0004',
        '0005',
        '0006',
        '0007',
        '0008',
        '0009',
      ]);
    });
  }, 300_000);

  it('should bound a fan-out of nested archives by the entry budget', async () => {
    await withTempDir(async (tmp) => {
      const leaf = buildZip(Array.from({ length: 100 }, (_, i) => ({ name: `f${i}`, data: Buffer.from('x') })));
      const middle = buildZip(Array.from({ length: 100 }, (_, i) => ({ name: `m${i}.zip`, data: leaf })));
      const file = join(tmp, 'fan.zip');
      writeFileSync(file, buildZip(Array.from({ length: 10 }, (_, i) => ({ name: `t${i}.zip`, data: middle }))));
      const { inventory, coverage } = await inspectArtifact(file, { budgets: { max_entries: 5000 } });
      expect(inventory.entry_count).toBe(5000);
      expect(coverage.status).toBe('partial');
    });
  });
});

describe('progress', () => {
  it('should report observed counts every 1,000 entries', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'p.zip');
      writeFileSync(
        file,
        buildZip(Array.from({ length: 2500 }, (_, i) => ({ name: `f${i}`, data: Buffer.from('x') }))),
      );
      const messages: string[] = [];
      await inspectArtifact(file, { onProgress: (message) => messages.push(message) });
      expect(messages).toEqual([
        '1000 entries inventoried, 1000 bytes hashed',
        '2000 entries inventoried, 2000 bytes hashed',
      ]);
    });
  });
});
