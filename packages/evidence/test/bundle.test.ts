import { describe, expect, it } from '@jest/globals';
import { constants } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, openSync, closeSync, ftruncateSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { BUNDLE_FORMAT, createSessionLedger, exportBundle, importBundle, readBundleSummary } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { functionRecord, rejected } from './records.js';

const records = (): EvidenceRecord[] => ['0x401000', '0x401100', '0x401200'].map((a, i) => functionRecord(a, 5 + i));

describe('exportBundle', () => {
  it('should publish the canonical bundle of the records, and nothing else', () =>
    withTempDir(async (dir) => {
      const destination = join(dir, 'session.json');
      const input = records();
      const result = await exportBundle(input, destination);
      const bytes = readFileSync(destination);
      // An independent RFC 8785 implementation produces the same bytes.
      expect(bytes.toString('utf8')).toBe(canonicalize({ format: 'rea-evidence-bundle', records: input, version: 1 }));
      expect(result).toEqual({
        path: destination,
        record_count: 3,
        byte_size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      expect(readdirSync(dir)).toEqual(['session.json']);
    }));

  it('should stream a lazy async iterable and replace an existing destination', () =>
    withTempDir(async (dir) => {
      const destination = join(dir, 'bundle.json');
      writeFileSync(destination, 'old contents');
      async function* lazy(): AsyncGenerator<EvidenceRecord> {
        for (const record of records()) {
          await new Promise((resolve) => setImmediate(resolve));
          yield record;
        }
      }
      const progress: Array<{ records: number; bytes: number }> = [];
      const result = await exportBundle(lazy(), destination, { onProgress: (p) => progress.push(p) });
      expect(result.record_count).toBe(3);
      expect(progress.map((p) => p.records)).toEqual([1, 2, 3]);
      // Bytes grow with each record; the closing text is written after the last report.
      expect(progress[2]!.bytes).toBe(result.byte_size - '],"version":1}'.length);
      const imported = await importBundle(destination);
      expect(imported.records.map((r) => r.evidence_id)).toEqual(records().map((r) => r.evidence_id));
    }));

  it('should write an empty bundle for no records', () =>
    withTempDir(async (dir) => {
      await exportBundle([], join(dir, 'empty.json'));
      expect(readFileSync(join(dir, 'empty.json'), 'utf8')).toBe(
        '{"format":"rea-evidence-bundle","records":[],"version":1}',
      );
    }));

  it('should stop on abort, remove the staging file and leave the destination unchanged', () =>
    withTempDir(async (dir) => {
      const destination = join(dir, 'bundle.json');
      writeFileSync(destination, 'previous bundle');
      const controller = new AbortController();
      let yielded = 0;
      function* aborting(): Generator<EvidenceRecord> {
        for (const record of records()) {
          yielded += 1;
          if (yielded === 2) controller.abort();
          yield record;
        }
      }
      const error = await rejected(exportBundle(aborting(), destination, { signal: controller.signal }));
      expect(error.code).toBe('cancelled');
      expect(yielded).toBe(2);
      expect(readFileSync(destination, 'utf8')).toBe('previous bundle');
      expect(readdirSync(dir)).toEqual(['bundle.json']);
    }));

  it('should refuse an already aborted signal without touching the folder', () =>
    withTempDir(async (dir) => {
      const controller = new AbortController();
      controller.abort();
      const error = await rejected(exportBundle(records(), join(dir, 'b.json'), { signal: controller.signal }));
      expect(error.code).toBe('cancelled');
      expect(readdirSync(dir)).toEqual([]);
    }));

  it('should remove the staging file when a record cannot be serialized', () =>
    withTempDir(async (dir) => {
      const destination = join(dir, 'bundle.json');
      const bad = { ...records()[0]!, normalized_result: { size: Number.POSITIVE_INFINITY } };
      const error = await rejected(exportBundle([records()[1]!, bad], destination));
      expect(error.code).toBe('invalid_request');
      expect(readdirSync(dir)).toEqual([]);
    }));

  it('should remove the staging file when the source fails', () =>
    withTempDir(async (dir) => {
      function* failing(): Generator<EvidenceRecord> {
        yield records()[0]!;
        throw new Error('source broke');
      }
      const error = await rejected(exportBundle(failing(), join(dir, 'bundle.json')));
      expect(error.code).toBe('internal');
      expect(error.details).toEqual({ cause: { name: 'Error', message: 'source broke' } });
      expect(readdirSync(dir)).toEqual([]);
      function* throwsNothing(): Generator<EvidenceRecord> {
        yield records()[0]!;
        throw undefined; // a hostile source
      }
      const odd = await rejected(exportBundle(throwsNothing(), join(dir, 'bundle.json')));
      expect(odd).toMatchObject({ code: 'internal', details: { cause: { name: 'undefined' } } });
      expect(readdirSync(dir)).toEqual([]);
    }));

  it('should say of a folder that takes no new file (/proc) that nothing can be created there, not that it is missing', async () => {
    const error = await rejected(exportBundle(records(), '/proc/rea-bundle.json'));
    expect(error.code).toBe('access_denied');
    expect(error.message).toBe('No file can be created in /proc (ENOENT).');
    expect(error.details['reason']).toBe('not-writable');
  });

  it('should advise checking the path when a bundle to read is missing', async () => {
    const error = await rejected(importBundle('/nonexistent-folder-of-rea/bundle.json'));
    expect(error.code).toBe('not_found');
    expect(error.remediation).toContain('Check the path');
  });

  it('should refuse a missing folder and a directory destination', () =>
    withTempDir(async (dir) => {
      const missing = await rejected(exportBundle(records(), join(dir, 'nope', 'b.json')));
      expect(missing.code).toBe('not_found');
      // Said of the folder the user named, not of REA's staging file inside it.
      expect(missing.message).toBe(`The folder ${join(dir, 'nope')} of the bundle destination does not exist.`);
      expect(missing.details['path']).toBe(join(dir, 'nope'));
      expect(missing.remediation).toContain('Create the folder');
      // A file where a folder of the path should be.
      writeFileSync(join(dir, 'plain'), 'not a folder');
      const notFolder = await rejected(exportBundle(records(), join(dir, 'plain', 'b.json')));
      expect(notFolder.code).toBe('not_found');
      expect(notFolder.message).toBe(
        `The folder ${join(dir, 'plain')} of the bundle destination is not a folder (a part of its path is a file).`,
      );
      mkdirSync(join(dir, 'folder'));
      const folder = await rejected(exportBundle(records(), join(dir, 'folder')));
      expect(folder.code).toBe('invalid_request');
      expect(folder.details['reason']).toBe('destination-is-directory');
      expect(readdirSync(dir).sort()).toEqual(['folder', 'plain']);
    }));
});

describe('importBundle', () => {
  it('should round-trip through a ledger, idempotently', () =>
    withTempDir(async (dir) => {
      const source = createSessionLedger();
      source.merge(records());
      const path = join(dir, 'session.json');
      await source.exportBundle(path);
      const bundle = await importBundle(path);
      expect(bundle).toMatchObject({ format: BUNDLE_FORMAT, version: 1, byte_size: readFileSync(path).length });
      const target = createSessionLedger();
      expect(target.merge(bundle.records).added).toEqual(source.list().map((r) => r.evidence_id));
      expect(target.merge((await importBundle(path)).records).added).toEqual([]);
      expect(await target.importBundle(path)).toEqual({
        added: [],
        already_present: source.list().map((r) => r.evidence_id),
      });
      const fresh = createSessionLedger({ maxRecords: 2 });
      expect((await rejected(fresh.importBundle(path))).code).toBe('resource_constraint');
      expect(fresh.size).toBe(0);
      expect(target.size).toBe(3);
      expect(target.bytes).toBe(source.bytes);
    }));

  it('should refuse a file above maxBytes before reading it', () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'huge.json');
      // A sparse 8 GiB file: reading it whole would not even fit in a Buffer.
      const fd = openSync(path, 'w');
      ftruncateSync(fd, 8 * 1024 ** 3);
      closeSync(fd);
      const error = await rejected(importBundle(path, { maxBytes: 1024 * 1024 }));
      expect(error.code).toBe('resource_constraint');
      expect(error.details).toEqual({ resource: 'file-size', limit: 1024 * 1024, observed: 8 * 1024 ** 3, path });
    }));

  it('should refuse a file too large to decode even when maxBytes allows it', () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'huge.json');
      const size = constants.MAX_STRING_LENGTH + 16;
      const fd = openSync(path, 'w');
      ftruncateSync(fd, size);
      closeSync(fd);
      const error = await rejected(importBundle(path, { maxBytes: size }));
      expect(error).toMatchObject({ code: 'resource_constraint', details: { resource: 'memory', observed: size } });
    }));

  it('should accept a file of exactly maxBytes', () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'b.json');
      await exportBundle(records(), path);
      const size = readFileSync(path).length;
      expect((await importBundle(path, { maxBytes: size })).records).toHaveLength(3);
      expect((await rejected(importBundle(path, { maxBytes: size - 1 }))).code).toBe('resource_constraint');
    }));

  it('should verify every record and name the failing one', () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'b.json');
      const input = records().map((r) => JSON.parse(JSON.stringify(r)) as EvidenceRecord);
      input[2]!.confidence = 'inferred';
      writeFileSync(path, JSON.stringify({ format: 'rea-evidence-bundle', records: input, version: 1 }));
      const error = await rejected(importBundle(path));
      expect(error.code).toBe('evidence_integrity_mismatch');
      expect(error.details).toMatchObject({ record_index: 2, declared: input[2]!.evidence_id, field: 'evidence_id' });
    }));

  it('should refuse what is not a bundle', () =>
    withTempDir(async (dir) => {
      const cases: Array<[string, string, string]> = [
        ['truncated.json', '{"format":"rea-evidence-bundle","records":[', 'invalid_request'],
        ['wrong.json', '{"format":"other","records":[],"version":1}', 'invalid_request'],
        ['newer.json', '{"format":"rea-evidence-bundle","records":[],"version":2}', 'invalid_request'],
        ['array.json', '[]', 'invalid_request'],
        [
          'record.json',
          '{"format":"rea-evidence-bundle","records":[{"evidence_id":"ev_0"}],"version":1}',
          'invalid_request',
        ],
      ];
      for (const [name, text, code] of cases) {
        writeFileSync(join(dir, name), text);
        const error = await rejected(importBundle(join(dir, name)));
        expect([name, error.code]).toEqual([name, code]);
      }
      expect((await rejected(importBundle(join(dir, 'absent.json')))).code).toBe('not_found');
      expect((await rejected(importBundle(dir))).code).toBe('invalid_request');
      // A FIFO with no writer would block an open for reading forever.
      const fifo = join(dir, 'pipe.json');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      expect(await rejected(importBundle(fifo))).toMatchObject({
        code: 'invalid_request',
        details: { reason: 'not-a-file', path: fifo },
      });
    }));

  it('should honour an aborted signal', () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'b.json');
      await exportBundle(records(), path);
      const controller = new AbortController();
      controller.abort();
      expect((await rejected(importBundle(path, { signal: controller.signal }))).code).toBe('cancelled');
    }));
});

describe('readBundleSummary', () => {
  it('should summarize and filter a bundle like the ledger does', () =>
    withTempDir(async (dir) => {
      const ledger = createSessionLedger();
      ledger.merge(records());
      const path = join(dir, 'b.json');
      await ledger.exportBundle(path);
      const summary = await readBundleSummary(path, { filters: { procedure_address: '0x401100' } });
      expect(summary).toEqual({
        format: 'rea-evidence-bundle',
        version: 1,
        record_count: 3,
        byte_size: readFileSync(path).length,
        records: ledger.summaries({ procedure_address: '0x401100' }),
      });
      expect(summary.records).toHaveLength(1);
      expect((await readBundleSummary(path)).records).toEqual(ledger.summaries());
      expect((await rejected(readBundleSummary(path, { filters: { address: 'x' } as never }))).code).toBe(
        'invalid_request',
      );
      // A name where an address belongs matched nothing before, silently ("0 shown").
      const named = await rejected(readBundleSummary(path, { filters: { procedure_address: 'main' } }));
      expect(named).toMatchObject({
        code: 'invalid_request',
        details: {
          issues: [
            {
              path: 'procedure_address',
              message: 'an address as records give it: lowercase 0x hex, e.g. "0x401126"',
            },
          ],
        },
      });
    }));
});
