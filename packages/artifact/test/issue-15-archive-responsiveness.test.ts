// Large archives must not hold the event loop: a ZIP whose entries all come from one cached block is
// inventoried with turns of the event loop (so a cancel sent meanwhile takes effect during the
// inventory), and an ASAR header of megabytes of JSON is parsed a slice at a time to exactly what
// JSON.parse gives, refusing what JSON.parse refuses.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildAsar } from './helpers/asarWriter.js';
import { buildZip } from './helpers/zipWriter.js';

// Stored one-byte files with short names: all local headers and data lie in the first MiB.
const ENTRIES = 24_000;
const zip = buildZip(
  Array.from({ length: ENTRIES }, (_, i) => ({
    name: i.toString(36).padStart(4, '0'),
    data: Buffer.from([i % 251]),
    method: 0 as const,
  })),
);

/** Aborts `controller` on the fifth turn of the event loop after `start()` is called; counts turns. */
function abortAfterTurns(controller: AbortController): { start: () => void; turns: () => number } {
  let turns = 0;
  let started = false;
  const turn = (): void => {
    turns += 1;
    if (turns === 5) controller.abort();
    else setImmediate(turn);
  };
  return {
    start: () => {
      if (started) return;
      started = true;
      setImmediate(turn);
    },
    turns: () => turns,
  };
}

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; phase: unknown } | 'completed'> {
  try {
    await promise;
    return 'completed';
  } catch (error) {
    if (!isReaError(error)) throw error;
    return { code: error.code, phase: error.details['phase'] };
  }
}

describe('issue 15: archives of many entries keep the event loop turning', () => {
  it('should inventory the generated ZIP completely when not cancelled', async () => {
    await withTempDir(async (tmp) => {
      const path = join(tmp, 'many.zip');
      writeFileSync(path, zip);
      const outcome = await inspectArtifact(path);
      expect(outcome.inventory.entry_count).toBe(ENTRIES);
      expect(outcome.inventory.entries[ENTRIES - 1]).toMatchObject({
        path: (ENTRIES - 1).toString(36).padStart(4, '0'),
        integrity: 'verified',
        size: 1,
      });
      expect(outcome.coverage.status).toBe('complete');
    });
  });

  it('should take a cancel sent during the inventory of a ZIP read from one cached block', async () => {
    await withTempDir(async (tmp) => {
      const path = join(tmp, 'many.zip');
      writeFileSync(path, zip);
      const controller = new AbortController();
      const clock = abortAfterTurns(controller);
      const outcome = await codeOf(
        inspectArtifact(path, {
          signal: controller.signal,
          // Counting starts once the inventory has listed its first thousand entries.
          onProgress: (message) => (/entries inventoried/.test(message) ? clock.start() : undefined),
        }),
      );
      expect(outcome).toEqual({ code: 'cancelled', phase: 'inventory' });
      expect(clock.turns()).toBe(5);
    });
  });

  describe('an ASAR header of megabytes of JSON', () => {
    const files: Record<string, unknown> = {};
    for (let d = 0; d < 60; d += 1) {
      const inner: Record<string, unknown> = {};
      for (let f = 0; f < 500; f += 1) inner[`f${f}.js`] = { size: 1, offset: '0' };
      files[`d${d}`] = { files: inner };
    }
    const header = JSON.stringify({ files });

    it('should list what JSON.parse reads, own "__proto__" members and repeated names included', async () => {
      // "__proto__" is an entry like any other; a repeated name keeps its first place and last value.
      const raw = `${header.slice(0, -2)},"__proto__":{"size":1,"offset":"0"},"d0":{"size":1,"offset":"0"}}}`;
      expect(raw.length).toBeGreaterThan(1_000_000);
      await withTempDir(async (tmp) => {
        const path = join(tmp, 'app.asar');
        writeFileSync(path, buildAsar(null, Buffer.from('x'), raw));
        const outcome = await inspectArtifact(path);
        const paths = outcome.inventory.entries.map((e) => e.path);
        expect(paths).toHaveLength(59 * 501 + 2);
        expect(paths[0]).toBe('__proto__');
        expect(outcome.inventory.entries.find((e) => e.path === 'd0')).toMatchObject({ kind: 'file', size: 1 });
        expect(paths).toContain('d59/f499.js');
      });
    });

    it.each([
      ['a trailing comma', (h: string) => `${h.slice(0, -2)},}}`],
      ['a missing colon', (h: string) => h.replace('"d7":{', '"d7"{')],
      ['mismatched brackets', (h: string) => h.replace('"d9":{"files":{', '"d9":{"files":[')],
      ['a member without a value', (h: string) => h.replace('"d3":', '"d3":,')],
      ['an unterminated string', (h: string) => `${h.slice(0, -2)},"open`],
      ['text after the value', (h: string) => `${h} x`],
      ['a leading comma', (h: string) => h.replace('{"files":{', '{"files":{,')],
    ])('should refuse a large header with %s, as JSON.parse does', async (_label, corrupt) => {
      const raw = corrupt(header);
      expect(() => JSON.parse(raw)).toThrow(SyntaxError);
      await withTempDir(async (tmp) => {
        const path = join(tmp, 'bad.asar');
        writeFileSync(path, buildAsar(null, Buffer.from('x'), raw));
        const error = await inspectArtifact(path).then(
          () => null,
          (e: unknown) => e,
        );
        expect(isReaError(error) && error.code).toBe('unsupported_target');
        expect((error as Error).message).toMatch(/not valid JSON/);
      });
    });
  });
});
