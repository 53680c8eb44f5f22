// A large frame (and an HTTP response body) is written a chunk at a time, waiting for the stream to
// drain when it asks to. Each wait must take its listeners off the stream again: a server writes frames for as long as its
// connection lives, and listeners left behind per chunk grow without bound (Node.js warns of a
// possible leak once 11 gather). Driven through a real Writable whose writes complete asynchronously,
// with a buffer far smaller than the frame, so that nearly every chunk waits for `drain`.
import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { WRITE_CHUNK } from '../src/chunkedWrite.js';
import { writeInChunks } from './pieces.js';
import { writeResponseBody } from '../src/largeEvents.js';

const EVENTS = ['drain', 'close', 'error'] as const;

/** A stream that takes each write a turn of the event loop later, keeping what it received. */
function slowStream(): { stream: Writable; received: () => string; drains: () => number } {
  let text = '';
  let drains = 0;
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      setImmediate(done);
    },
  });
  stream.on('drain', () => (drains += 1));
  return { stream, received: () => text, drains: () => drains };
}

const counts = (stream: Writable) => EVENTS.map((event) => stream.listenerCount(event));

describe('writing a large frame in chunks', () => {
  it('leaves no listener behind, however many times it waits for the stream to drain', async () => {
    const { stream, received, drains } = slowStream();
    const before = counts(stream);
    const pieces = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(WRITE_CHUNK / 4)}`);
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let frame = 0; frame < 3; frame += 1) await writeInChunks(stream, [...pieces, '\n']);
    } finally {
      process.off('warning', onWarning);
    }
    expect(drains()).toBeGreaterThan(20);
    expect(counts(stream)).toEqual(before);
    expect(received()).toBe(`${pieces.join('')}\n`.repeat(3));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('leaves no listener behind when an HTTP response body waits for the socket to drain', async () => {
    const { stream, received, drains } = slowStream();
    const before = counts(stream);
    const chunk = new Uint8Array(4096).fill(0x61);
    const body = new ReadableStream<unknown>({
      start(controller) {
        for (let i = 0; i < 50; i += 1) controller.enqueue(chunk);
        controller.close();
      },
    });
    await writeResponseBody(body.getReader(), stream as unknown as ServerResponse);
    expect(drains()).toBeGreaterThan(20);
    expect(counts(stream)).toEqual(before);
    expect(received()).toBe('a'.repeat(4096 * 50));
  });

  it('stops with an error when the stream closes while it waits, and leaves no listener behind', async () => {
    const { stream } = slowStream();
    const before = counts(stream);
    const writing = writeInChunks(
      stream,
      Array.from({ length: 20 }, () => 'y'.repeat(WRITE_CHUNK)),
    );
    setImmediate(() => stream.destroy());
    await expect(writing).rejects.toThrow('The output stream is closed.');
    expect(counts(stream)).toEqual(before);
  });

  it('rejects with the stream error when the stream fails while it waits', async () => {
    const stream = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        setImmediate(() => done(new Error('pipe broke')));
      },
    });
    const before = counts(stream);
    await expect(writeInChunks(stream, ['z'.repeat(WRITE_CHUNK * 3)])).rejects.toThrow('pipe broke');
    // The stream's own error listener, which Node.js adds while a write is failing, is gone again too.
    expect(counts(stream)).toEqual(before);
  });
});
