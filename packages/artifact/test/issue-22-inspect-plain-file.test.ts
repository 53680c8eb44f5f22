import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticImportGraph } from '@rea/test-helpers';
import { inspectArtifact } from '@rea/artifact';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

// Inventorying a plain file (what `rea analyze` does to every executable) needs no container reader:
// the ZIP library with its worker pool, the ASAR reader and the directory walker load only for a
// container.
describe('issue 22: inspecting a plain file loads no container reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-inspect-plain-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should not import the container readers statically from the inventory', () => {
    const graph = staticImportGraph(join(src, 'inventory', 'inspect.ts'));
    const external = new Set([...graph.values()].flat().filter((s) => !s.startsWith('.')));
    expect(external.has('yauzl')).toBe(false);
    const loaded = [...graph.keys()].map((file) => file.slice(src.length + 1));
    expect(loaded.filter((file) => /^(engine\/zip|inventory\/(zip|asar|directory))\.ts$/.test(file))).toEqual([]);
  });

  it('should still inventory a plain file, a ZIP-less directory and report both', async () => {
    const file = join(dir, 'plain.bin');
    writeFileSync(file, Buffer.from('\x7fELF not really an executable\n', 'latin1'));
    const plain = await inspectArtifact(file);
    expect(plain.inventory.format).toBe('file');
    expect(plain.inventory.entries.map((entry) => entry.path)).toEqual(['plain.bin']);
    const folder = await inspectArtifact(dir);
    expect(folder.inventory.format).toBe('directory');
    expect(folder.inventory.entries.map((entry) => entry.path)).toEqual(['plain.bin']);
  });
});
