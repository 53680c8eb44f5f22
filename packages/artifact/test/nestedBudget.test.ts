import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asar from '@electron/asar';
import { extractArtifact } from '@rea/artifact';
import { isReaError } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

/** A small ZIP to nest: a greeting and `padding` stored bytes. */
function innerZip(label: string, padding: number): Buffer {
  return buildZip([
    { name: 'hello.txt', data: text(`hello from ${label}`) },
    { name: 'pad.bin', data: Buffer.alloc(padding, label.charCodeAt(0)), method: 0 },
  ]);
}

describe('extractArtifact: one memory budget for all selected nested containers', () => {
  const a = innerZip('a', 4000);
  const b = innerZip('b', 4000);
  const c = innerZip('c', 4000);
  const outer = buildZip([
    { name: 'a.zip', data: a },
    { name: 'b.zip', data: b },
    { name: 'c.zip', data: c },
  ]);
  const select = ['a.zip!/hello.txt', 'b.zip!/hello.txt', 'c.zip!/hello.txt'];

  it('should extract from three nested ZIPs when the budget holds all three', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, outer);
      // Independent check of the fixture: unzip lists the three nested archives and their sizes.
      const listed = run('unzip', ['-Zl', archive]);
      for (const [name, bytes] of [
        ['a.zip', a],
        ['b.zip', b],
        ['c.zip', c],
      ] as const)
        expect(listed).toMatch(new RegExp(`\\s${bytes.length}\\s.*\\s${name.replace('.', '\\.')}\\n`));
      const limit = a.length + b.length + c.length;
      const { outputDirectory, result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        select,
        budgets: { max_nested_bytes: limit },
      });
      expect(result.files.map((f) => f.path)).toEqual(select);
      expect(readFileSync(join(outputDirectory, 'c.zip!', 'hello.txt'), 'utf8')).toBe('hello from c');
    });
  });

  it('should refuse the container that takes the sum past max_nested_bytes, naming it and the budget', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, outer);
      // Room for any two of the three, not for all three: each alone fits, so only a running sum refuses.
      const limit = a.length + b.length + c.length - 1;
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      const error = await extractArtifact(archive, {
        parentDirectory: parent,
        select,
        budgets: { max_nested_bytes: limit },
      }).catch((e: unknown) => e);
      if (!isReaError(error)) throw new Error(`expected a ReaError, got ${String(error)}`);
      expect(error.code).toBe('resource_constraint');
      expect(error.details).toEqual({
        resource: 'memory',
        budget: 'max_nested_bytes',
        limit,
        observed: a.length + b.length + c.length,
        path: 'c.zip',
      });
      expect(readdirSync(parent)).toEqual([]);
      // Two of the three fit the same budget.
      const two = await extractArtifact(archive, {
        parentDirectory: parent,
        select: select.slice(0, 2),
        budgets: { max_nested_bytes: limit },
      });
      expect(two.result.files.map((f) => f.path)).toEqual(select.slice(0, 2));
    });
  });

  it('should count a container still held while a deeper one is read', async () => {
    await withTempDir(async (tmp) => {
      const src = join(tmp, 'app');
      mkdirSync(src);
      writeFileSync(join(src, 'main.js'), 'x'.repeat(3000));
      await asar.createPackageWithOptions(src, join(tmp, 'app.asar'), {});
      const app = readFileSync(join(tmp, 'app.asar'));
      const middle = buildZip([{ name: 'app.asar', data: app }]);
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, buildZip([{ name: 'middle.zip', data: middle }]));
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      const deep = ['middle.zip!/app.asar!/main.js'];
      // The middle ZIP alone fits, but it stays held while the ASAR inside it is read.
      const error = await extractArtifact(archive, {
        parentDirectory: parent,
        select: deep,
        budgets: { max_nested_bytes: middle.length + app.length - 1 },
      }).catch((e: unknown) => e);
      if (!isReaError(error)) throw new Error(`expected a ReaError, got ${String(error)}`);
      expect(error.code).toBe('resource_constraint');
      expect(error.details['path']).toBe('middle.zip!/app.asar');
      expect(error.details['observed']).toBe(middle.length + app.length);
      expect(readdirSync(parent)).toEqual([]);
      const { result } = await extractArtifact(archive, {
        parentDirectory: parent,
        select: deep,
        budgets: { max_nested_bytes: middle.length + app.length },
      });
      expect(result.files.map((f) => [f.path, f.size])).toEqual([[deep[0], 3000]]);
    });
  });

  it('should refuse a ZIP inside an ASAR larger than the budget before reading it', async () => {
    await withTempDir(async (tmp) => {
      const src = join(tmp, 'app');
      mkdirSync(src);
      writeFileSync(join(src, 'inner.zip'), a);
      await asar.createPackageWithOptions(src, join(tmp, 'app.asar'), {});
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      const attempt = (limit: number) =>
        extractArtifact(join(tmp, 'app.asar'), {
          parentDirectory: parent,
          select: ['inner.zip!/hello.txt'],
          budgets: { max_nested_bytes: limit },
        });
      const error = await attempt(a.length - 1).catch((e: unknown) => e);
      if (!isReaError(error)) throw new Error(`expected a ReaError, got ${String(error)}`);
      expect([error.code, error.details['path'], error.details['observed']]).toEqual([
        'resource_constraint',
        'inner.zip',
        a.length,
      ]);
      expect(readdirSync(parent)).toEqual([]);
      const { result } = await attempt(a.length);
      expect(result.files.map((f) => f.path)).toEqual(['inner.zip!/hello.txt']);
    });
  });
});
