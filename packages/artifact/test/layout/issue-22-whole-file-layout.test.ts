import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseBinaryLayoutAsync, parseWholeBinaryFileAsync } from '@rea/artifact';
import { bigElf } from '../helpers/bigElf.js';

const directory = mkdtempSync(join(tmpdir(), 'rea-whole-layout-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('issue 22: parseWholeBinaryFileAsync reads a file whole and hands a second reader of the same bytes the same layout', () => {
  it('should parse what parseBinaryLayoutAsync parses from the same bytes, readAt included', async () => {
    const path = join(directory, 'big.elf');
    const elf = bigElf(3_000);
    writeFileSync(path, elf);
    const { readAt, ...rest } = await parseWholeBinaryFileAsync(path);
    const { readAt: expectedReadAt, ...expected } = await parseBinaryLayoutAsync(elf);
    expect(rest).toEqual(expected);
    expect(rest.symbols.length).toBeGreaterThanOrEqual(3_000);
    expect(readAt(0x1000, 16)).toEqual(expectedReadAt(0x1000, 16));
  });

  it('should answer a second call for the unchanged file with the layout it made', async () => {
    const path = join(directory, 'ls');
    copyFileSync('/usr/bin/ls', path);
    const first = await parseWholeBinaryFileAsync(path);
    const second = await parseWholeBinaryFileAsync(path);
    expect(second).toBe(first);
    expect(first.format).toBe('elf');
  });

  it('should still give a turn and end as cancelled when the layout it hands again was cancelled meanwhile', async () => {
    const path = join(directory, 'ls-cancel');
    copyFileSync('/usr/bin/ls', path);
    const first = await parseWholeBinaryFileAsync(path);
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    await expect(parseWholeBinaryFileAsync(path, { signal: controller.signal })).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'start' },
    });
    // Not cancelled, it is the same layout again.
    await expect(parseWholeBinaryFileAsync(path)).resolves.toBe(first);
  });

  it('should hand the layout again when the file was written with the very same bytes', async () => {
    const path = join(directory, 'same-bytes');
    copyFileSync('/usr/bin/ls', path);
    const first = await parseWholeBinaryFileAsync(path);
    writeFileSync(path, readFileSync('/usr/bin/ls'));
    await expect(parseWholeBinaryFileAsync(path)).resolves.toBe(first);
  });

  it('should parse again once the file holds other bytes of the same size, whatever its times say', async () => {
    const path = join(directory, 'rewritten.elf');
    const elf = bigElf(100);
    writeFileSync(path, elf);
    const first = await parseWholeBinaryFileAsync(path);
    // The same bytes but for one symbol name's first letter: same size, other content.
    const changed = Buffer.from(elf);
    const at = changed.indexOf(Buffer.from('function_0\0'));
    expect(at).toBeGreaterThan(0);
    changed[at] = 'g'.charCodeAt(0);
    const { atime, mtime } = statSync(path);
    writeFileSync(path, changed);
    // Its modification time set back, as on a file system whose clock moves in coarse ticks.
    utimesSync(path, atime, mtime);
    expect(readFileSync(path).length).toBe(elf.length);
    const second = await parseWholeBinaryFileAsync(path);
    expect(second).not.toBe(first);
    expect(second.symbols.map((s) => s.name)).toContain('gunction_0');
    expect(first.symbols.map((s) => s.name)).not.toContain('gunction_0');
  });

  it('should not take the layout of another file, even one with the same bytes', async () => {
    const a = join(directory, 'a');
    const b = join(directory, 'b');
    copyFileSync('/usr/bin/ls', a);
    copyFileSync('/usr/bin/ls', b);
    const first = await parseWholeBinaryFileAsync(a);
    const second = await parseWholeBinaryFileAsync(b);
    expect(second).not.toBe(first);
    expect(second.symbols).toEqual(first.symbols);
  });

  it('should throw the file system error for a missing file, and the parser refusal for a non-binary', async () => {
    await expect(parseWholeBinaryFileAsync(join(directory, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    const text = join(directory, 'text');
    writeFileSync(text, 'not a binary at all\n');
    await expect(parseWholeBinaryFileAsync(text)).rejects.toMatchObject({
      code: 'unsupported_target',
      details: expect.objectContaining({ reason: 'unknown-format' }),
    });
  });
});
