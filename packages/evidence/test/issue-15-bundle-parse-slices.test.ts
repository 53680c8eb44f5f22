// A bundle file is parsed a record at a time, not in one JSON.parse of the whole file: its records are
// found by a scan of the bytes and parsed one by one with turns of the event loop between slices. The
// parse gives what JSON.parse gives (and refuses what it refuses, as malformed-json); a cancel during
// the parse ends it as `cancelled` with phase "bundle parse". The import's turns are told apart from
// those of reading the file: the cancel is sent once the file is read and closed.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every file handle the import opens reports its close: the reading of the bundle ends there.
let onClose: () => void = () => undefined;
jest.unstable_mockModule('node:fs/promises', () => ({
  ...fs,
  default: fs,
  open: async (...args: Parameters<typeof fs.open>): Promise<FileHandle> => {
    const handle = await fs.open(...args);
    const close = handle.close.bind(handle);
    handle.close = () => close().finally(() => onClose());
    return handle;
  },
}));
// Imported once the mock is in place (the helpers too: they load @rea/evidence).
const { exportBundle, importBundle } = await import('@rea/evidence');
const { turnProbe } = await import('@rea/test-helpers');
const { parseJsonInSlices } = await import('../src/jsonSlices.js');
const { functionRecord } = await import('./records.js');

const decode = (bytes: Buffer): string => bytes.toString('utf8');

/** Parses `text` in slices of 0 ms (a turn at every checkpoint), counting turns of the event loop. */
async function sliced(
  text: string,
  signal?: AbortSignal,
): Promise<{ value?: unknown; error?: unknown; turns: number }> {
  const probe = turnProbe();
  try {
    return await parseJsonInSlices(Buffer.from(text, 'utf8'), {
      signal,
      phase: 'bundle parse',
      decode,
      sliceMs: 0,
    }).then(
      (value) => ({ value, turns: probe.turns() }),
      (error: unknown) => ({ error, turns: probe.turns() }),
    );
  } finally {
    probe.stop();
  }
}

describe('issue 15: a bundle is parsed a record at a time', () => {
  let dir: string;
  let bundle: string;
  const records = Array.from({ length: 300 }, (_, i) => functionRecord(`0x${(0x401000 + i * 16).toString(16)}`));
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-bundle-parse-'));
    bundle = join(dir, 'bundle.json');
    await exportBundle(records, bundle);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should give what JSON.parse gives, with a turn of the event loop per item', async () => {
    const documents = [
      JSON.stringify({ format: 'rea-evidence-bundle', records, version: 1 }),
      JSON.stringify({ version: 1, records: records.slice(0, 20), format: 'x' }, null, 2),
      ' { "a" : [ ] , "b" : [ [1, [2]], {"c": "]\\"[,"}, "x\\\\", null ] , "d" : { "e" : [ 1 , 2 ] } , "f" : "[" } ',
      '{"__proto__": [1, 2], "k\\u0041": ["\u00e9\u{1F600}"], "n": []}',
      '[1, 2, {"a": [3]}]',
      '"text"',
      '{}',
    ];
    for (const text of documents) {
      const { value, error } = await sliced(text);
      expect(error).toBeUndefined();
      expect(value).toEqual(JSON.parse(text));
    }
    const { turns } = await sliced(documents[0]!);
    expect(turns).toBeGreaterThanOrEqual(records.length);
  });

  it.each([
    '{"records": [1,]}',
    '{"records": [1,,2]}',
    '{"records": [1}',
    '{"records": [1]',
    '{"records": ["a\\"]}',
    '{"records": [1]} x',
    '{"records": [{]}]}',
    '{"records" [1]}',
    '{"records": [1] "b": 2}',
    '{"records": [01]}',
  ])('should refuse %s as malformed JSON', async (text) => {
    expect(() => JSON.parse(text)).toThrow();
    const { error } = await sliced(text);
    expect(error).toMatchObject({ code: 'invalid_request', details: { reason: 'malformed-json' } });
  });

  it('should end as cancelled during the parse when the signal is aborted meanwhile', async () => {
    const text = JSON.stringify({ format: 'rea-evidence-bundle', records, version: 1 });
    const controller = new AbortController();
    let turns = 0;
    const probe = (): void => {
      turns += 1;
      if (turns === 50) controller.abort();
      else if (!controller.signal.aborted) setImmediate(probe);
    };
    setImmediate(probe);
    const { error } = await sliced(text, controller.signal);
    expect(error).toMatchObject({ code: 'cancelled', details: { phase: 'bundle parse' } });
  });

  it('should import with turns after the file is read, and stop in the parse when cancelled then', async () => {
    try {
      const turnsAfterRead = { at: -1 };
      const counter = turnProbe();
      onClose = () => (turnsAfterRead.at = counter.turns());
      const imported = await importBundle(bundle).finally(() => counter.stop());
      expect(imported.records).toEqual(records);
      expect(turnsAfterRead.at).toBeGreaterThanOrEqual(0);
      expect(counter.turns() - turnsAfterRead.at).toBeGreaterThan(1);

      const controller = new AbortController();
      onClose = () => void setImmediate(() => controller.abort());
      await expect(importBundle(bundle, { signal: controller.signal })).rejects.toMatchObject({
        code: 'cancelled',
        details: { phase: 'bundle parse' },
      });
    } finally {
      onClose = () => undefined;
    }
  });
});
