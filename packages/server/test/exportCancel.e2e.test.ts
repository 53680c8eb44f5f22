/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// Cancelling export_evidence_bundle over real stdio, mid-way through writing a large ledger: nothing is
// published, the staging file is removed, and the ledger is unchanged.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { diagnosticOf, valueOf } from './e2eSuite.js';

const entry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'standInServer.mjs');
const RECORDS = 3;
// ~20 MB of UTF-8 per record: the export takes long enough to be caught in the middle.
const CHARS = 16 * 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('@rea/server export_evidence_bundle cancellation over stdio', () => {
  it('should publish nothing, leave no staging file and keep the ledger when cancelled mid-way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-export-cancel-'));
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' }));
    const call = (name: string, args: Record<string, unknown> = {}, options = {}) =>
      client.callTool({ name, arguments: args }, { timeout: 120_000, ...options });
    try {
      valueOf(await call('open_binary', { path: entry }));
      for (let i = 0; i < RECORDS; i += 1) {
        // Too large for a response: refused by reference, and retained.
        const refused = diagnosticOf(await call('analyze_function', { address: `0x${i}`, pseudocode_chars: CHARS }));
        expect(refused.code).toBe('resource_constraint');
      }
      const before = valueOf<Record<string, any>>(await call('get_evidence_bundle', { detail: 'summary' }));
      expect(before['records']).toHaveLength(RECORDS);

      const destination = join(dir, 'bundle.json');
      const controller = new AbortController();
      const pending = call('export_evidence_bundle', { path: destination }, { signal: controller.signal });
      const outcome = pending.then(
        () => 'completed',
        () => 'rejected',
      );
      // Cancel once the staging file beside the destination has started to fill.
      let stagedBytes = 0;
      for (let i = 0; i < 4000 && stagedBytes === 0; i += 1) {
        const partial = readdirSync(dir).find((name) => name.startsWith('.bundle.json.') && name.endsWith('.partial'));
        stagedBytes = partial ? (statSync(join(dir, partial), { throwIfNoEntry: false })?.size ?? 0) : 0;
        if (stagedBytes === 0) await sleep(5);
      }
      expect(stagedBytes).toBeGreaterThan(0);
      controller.abort(new Error('stop'));
      expect(await outcome).toBe('rejected');

      // The server removes the staging file as it unwinds; give it a moment, then nothing may remain.
      for (let i = 0; i < 200 && readdirSync(dir).length > 0; i += 1) await sleep(50);
      expect(readdirSync(dir)).toEqual([]);
      const after = valueOf<Record<string, any>>(await call('get_evidence_bundle', { detail: 'summary' }));
      expect(after['records']).toEqual(before['records']);

      // The same export, not cancelled, publishes every record: the cancelled one was stopped part-way.
      const exported = valueOf<Record<string, any>>(await call('export_evidence_bundle', { path: destination }));
      expect(exported['record_count']).toBe(RECORDS);
      expect(statSync(destination).size).toBe(exported['byte_size']);
      expect(stagedBytes).toBeLessThan(exported['byte_size'] as number);
      expect(readdirSync(dir)).toEqual(['bundle.json']);
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
