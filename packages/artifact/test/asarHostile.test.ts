import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { asarIntegrity, buildAsar, simpleAsar } from './helpers/asarWriter.js';

const data = Buffer.from('0123456789abcdef');

async function bothRefuse(bytes: Buffer, expected: Record<string, unknown>): Promise<void> {
  await withTempDir(async (tmp) => {
    const file = join(tmp, 'hostile.asar');
    writeFileSync(file, bytes);
    await expect(inspectArtifact(file)).rejects.toMatchObject(expected);
    const parent = join(tmp, 'out');
    mkdirSync(parent);
    await expect(extractArtifact(file, { parentDirectory: parent })).rejects.toMatchObject(expected);
    expect(readdirSync(parent)).toEqual([]);
    expect(readdirSync(tmp).sort()).toEqual(['hostile.asar', 'out']);
  });
}

describe('ASAR headers that lie', () => {
  const malformed = { code: 'unsupported_target', details: { format: 'asar', reason: 'malformed' } };

  it.each<[string, Record<string, unknown>]>([
    ['an offset past the end', { a: { size: 4, offset: '1000' } }],
    ['a size past the end', { a: { size: 1000, offset: '0' } }],
    ['a negative size', { a: { size: -1, offset: '0' } }],
    ['a huge size', { a: { size: 2 ** 60, offset: '0' } }],
    ['a fractional size', { a: { size: 1.5, offset: '0' } }],
    ['a negative offset', { a: { size: 1, offset: '-4' } }],
    ['a non-numeric offset', { a: { size: 1, offset: '0x10' } }],
    [
      'malformed integrity',
      { a: { size: 4, offset: '0', integrity: { algorithm: 'SHA256', hash: 'zz', blockSize: 4, blocks: [] } } },
    ],
    ['a node that is not an object', { a: 7 }],
  ])('should refuse %s as malformed', async (_label, files) => {
    await bothRefuse(buildAsar({ files }, data), malformed);
  });

  it('should refuse a header size beyond the file, invalid JSON, and no files object', async () => {
    const lying = buildAsar({ files: {} }, data);
    lying.writeUInt32LE(0x7fffffff, 4);
    await bothRefuse(lying, malformed);
    await bothRefuse(buildAsar(null, data, '{"files": {'), malformed);
    await bothRefuse(buildAsar({ nope: {} }, data), malformed);
  });

  it('should refuse absurd nesting without exhausting the stack', async () => {
    let node: Record<string, unknown> = { f: { size: 1, offset: '0' } };
    for (let i = 0; i < 2000; i += 1) node = { d: { files: node } };
    await bothRefuse(buildAsar({ files: node }, data), { code: 'unsupported_target' });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a ".." key', { '..': { files: { evil: { size: 1, offset: '0' } } } }, 'parent-segment'],
    ['a key with slashes', { '../../evil': { size: 1, offset: '0' } }, 'parent-segment'],
    ['an outward link', { l: { link: '../../etc/passwd' } }, 'outward-symlink'],
    ['an absolute link', { l: { link: '/etc/passwd' } }, 'outward-symlink'],
  ])('should list %s with partial coverage and refuse to extract it', async (_label, files, problem) => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'a.asar');
      writeFileSync(file, buildAsar({ files }, data));
      const { coverage } = await inspectArtifact(file);
      expect(coverage.status).toBe('partial');
      await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'unsafe-path', problem },
      });
      expect(readdirSync(tmp)).toEqual(['a.asar']);
    });
  });

  it('should fail closed on a packed entry whose bytes contradict the header hash, and continue when asked', async () => {
    await withTempDir(async (tmp) => {
      const good = Buffer.from('good bytes');
      const bad = Buffer.from('bad  bytes');
      const header = {
        files: {
          good: { size: good.length, offset: '0', integrity: asarIntegrity(good) },
          bad: { size: bad.length, offset: String(good.length), integrity: asarIntegrity(Buffer.from('declared!!')) },
        },
      };
      const file = join(tmp, 'a.asar');
      writeFileSync(file, buildAsar(header, Buffer.concat([good, bad])));
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: {
          path: 'bad',
          algorithm: 'sha256',
          declared: asarIntegrity(Buffer.from('declared!!')).hash,
          unpacked: false,
        },
      });
      const { inventory } = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      expect(inventory.entries.map((e) => [e.path, e.integrity])).toEqual([
        ['bad', 'contradicted'],
        ['good', 'verified'],
      ]);
    });
  });

  it('should detect a block hash that lies while the whole-file hash is right', async () => {
    await withTempDir(async (tmp) => {
      const bytes = Buffer.from('x'.repeat(100));
      const integrity = {
        ...asarIntegrity(bytes, 32),
        blocks: asarIntegrity(bytes, 32).blocks.map((b, i) => (i === 2 ? '0'.repeat(64) : b)),
      };
      const file = join(tmp, 'a.asar');
      writeFileSync(file, buildAsar({ files: { f: { size: 100, offset: '0', integrity } } }, bytes));
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { algorithm: 'sha256-blocks' },
      });
    });
  });

  it('should read a well-formed hand-written archive', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'a.asar');
      writeFileSync(file, simpleAsar({ 'a.txt': Buffer.from('a'), 'b.txt': Buffer.from('bb') }));
      const { inventory, coverage } = await inspectArtifact(file);
      expect(coverage.status).toBe('complete');
      expect(inventory.entries.map((e) => [e.path, e.size, e.integrity])).toEqual([
        ['a.txt', 1, 'verified'],
        ['b.txt', 2, 'verified'],
      ]);
    });
  });
});
