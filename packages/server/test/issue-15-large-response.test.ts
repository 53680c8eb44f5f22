// A large result is measured, written as text and serialized into its frame with turns of the event
// loop, and a frame that is being written is never interleaved with another. Event-driven: a probe
// that reschedules itself with setImmediate counts the turns the loop takes meanwhile.
import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { canonicalJson } from '@rea/evidence';
import { measureResponse } from '@rea/server';
import { measureResponseAsync } from '../src/budget.js';
import { LARGE_FRAME_TEXT, sendLargeFramesInSlices } from '../src/largeFrames.js';
import { WRITE_CHUNK } from '../src/chunkedWrite.js';
import { jsonInSlices, writeInChunks } from './pieces.js';

const table = Array.from({ length: 40_000 }, (_, i) => ({
  path: `folder ${i % 100}/file "${i}".js\u00e9`,
  size: i,
  kind: i % 3 === 0 ? 'file' : 'link',
  tags: i % 7 === 0 ? ['a', { deep: [i, null, true] }] : [],
}));
const big = { normalized_result: { entries: table, nested: [Array.from({ length: 600 }, (_, i) => [i])] } };

/** Counts turns of the event loop until stopped; always stop it in `finally`. */
function turnProbe(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => (stopped = true) };
}

describe('issue 15: a large response is prepared without holding the event loop', () => {
  it('should measure a large value as the synchronous measure does, with turns of the loop', async () => {
    const probe = turnProbe();
    try {
      const before = probe.turns();
      const cost = await measureResponseAsync(big, 1 << 30, true, undefined);
      expect(probe.turns() - before).toBeGreaterThan(1);
      expect(cost).toEqual(measureResponse(big, 1 << 30, true));
      expect(cost.structured).toBe(Buffer.byteLength(canonicalJson(big)));
      const over = await measureResponseAsync(big, 100_000, true, undefined);
      expect(over.fits).toBe(false);
      await expect(measureResponseAsync({ a: [undefined] }, 1000, true, undefined)).rejects.toMatchObject({
        code: 'invalid_request',
      });
    } finally {
      probe.stop();
    }
  });

  it('should stop measuring with cancelled when its signal is aborted', async () => {
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    await expect(measureResponseAsync(big, 1 << 30, true, controller.signal)).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'publication' },
    });
  });

  it('should serialize in slices to the JSON of JSON.stringify', async () => {
    const long = `${'x"\\'.repeat(40_000)}\u{1F600}${'y'.repeat(65_535)}\u{1F600}`;
    const values: unknown[] = [
      big,
      { long, list: [long, undefined, () => 1, 3], skipped: undefined, when: new Date(0), n: null },
      [Array.from({ length: 1000 }, (_, i) => ({ i, u: undefined }))],
      {
        content: [
          { type: 'text', text: long },
          { type: 'text', text: 'short' },
        ],
        list: [{ rows: table }],
      },
      'plain',
      7,
    ];
    const probe = turnProbe();
    try {
      const before = probe.turns();
      for (const value of values) expect((await jsonInSlices(value)).join('')).toBe(JSON.stringify(value));
      expect(probe.turns() - before).toBeGreaterThan(1);
    } finally {
      probe.stop();
    }
  });

  it('should send a large result as one frame while frames sent meanwhile wait for it', async () => {
    const out = new PassThrough();
    let written = '';
    out.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
    // Stands for the SDK's transport: one write per small frame.
    const transport = {
      send: (message: never): Promise<void> => {
        out.write(`${JSON.stringify(message)}\n`);
        return Promise.resolve();
      },
    };
    sendLargeFramesInSlices(transport, out);
    const value = { entries: table.slice(0, 8_000) };
    const text = canonicalJson(value);
    expect(text.length).toBeGreaterThan(LARGE_FRAME_TEXT);
    const large = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }], structuredContent: value } };
    const probe = turnProbe();
    try {
      const sendingLarge = transport.send(large as never);
      // Sent before the large frame's first chunk is out, and while it is being written: both follow it.
      const sooner = transport.send({ jsonrpc: '2.0', id: 2, result: {} } as never);
      expect(written).toBe('');
      await new Promise<void>((resolve) => {
        const look = (): void => {
          if (written.length > 100) resolve();
          else setImmediate(look);
        };
        look();
      });
      const later = transport.send({ jsonrpc: '2.0', id: 3, result: {} } as never);
      await Promise.all([sendingLarge, sooner, later]);
      expect(probe.turns()).toBeGreaterThan(2);
    } finally {
      probe.stop();
    }
    const frames = written.split('\n');
    expect(frames).toHaveLength(4);
    expect(frames[3]).toBe('');
    expect(frames.slice(0, 3).map((frame) => (JSON.parse(frame) as { id: number }).id)).toEqual([1, 2, 3]);
    expect(JSON.parse(frames[0]!)).toEqual(JSON.parse(JSON.stringify(large)));
  });

  it('should write a large frame as it is serialized, never holding its whole text', async () => {
    const out = new PassThrough();
    let received = 0;
    let largestWrite = 0;
    const write = out.write.bind(out) as (chunk: string) => boolean;
    (out as unknown as { write: (chunk: string) => boolean }).write = (chunk) => {
      largestWrite = Math.max(largestWrite, chunk.length);
      return write(chunk);
    };
    out.on('data', (chunk: Buffer) => (received += chunk.length));
    const transport = { send: (): Promise<void> => Promise.reject(new Error('a large frame goes through the slices')) };
    sendLargeFramesInSlices(transport, out);
    // The last member is read when the frame's serialization reaches it: by then its start is written.
    let receivedWhenLastRead = -1;
    const value = { entries: table.slice(0, 20_000), text: 'z'.repeat(3 * LARGE_FRAME_TEXT) };
    Object.defineProperty(value, 'last', {
      enumerable: true,
      get: () => {
        receivedWhenLastRead = received;
        return 'end';
      },
    });
    const message = {
      jsonrpc: '2.0',
      id: 4,
      result: { content: [{ type: 'text', text: value.text }], structuredContent: value },
    };
    await (transport.send as (message: unknown) => Promise<void>)(message);
    expect(receivedWhenLastRead).toBeGreaterThan(LARGE_FRAME_TEXT);
    // Written in chunks: the text of the frame (more than 3 MB) never goes to the stream at once.
    expect(largestWrite).toBeLessThanOrEqual(2 * WRITE_CHUNK);
    expect(received).toBeGreaterThan(6 * LARGE_FRAME_TEXT);
  });

  it('should write a piece longer than a chunk a chunk at a time, keeping surrogate pairs whole', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    // Pairs that straddle every possible chunk boundary, after a short piece that shifts them.
    const long = '\u{1F600}'.repeat(2 * WRITE_CHUNK + 3);
    const pieces = ['a', long, 'b', `x${long}`, 'c'];
    await writeInChunks(out, pieces);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text).toBe(pieces.join(''));
    expect(text.includes('\uFFFD')).toBe(false);
  });
});
