import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { createRawInflater } from '@rea/artifact';
import type { RawInflater } from '@rea/artifact';

// One engine inflates entry after entry; every result is what the one-shot inflate gives (bytes or
// error), so an entry after a faulty one is inflated as if it came first.
let inflater: RawInflater;
const oneShot = (raw: Buffer, size: number): Buffer | string => {
  try {
    return inflateRawSync(raw, { maxOutputLength: Math.max(1, size + 1) });
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  }
};
const reused = (raw: Buffer, size: number): Buffer | string => {
  try {
    return inflater.inflate(raw, size);
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  }
};

beforeAll(async () => {
  inflater = await createRawInflater();
});
afterAll(() => inflater.close());

describe('createRawInflater (issue 22)', () => {
  const text = Buffer.from('an entry of a package, deflated\n'.repeat(500));
  const noise = randomBytes(3000);

  it('inflates many entries in a row to their exact bytes', () => {
    for (let i = 0; i < 300; i += 1) {
      const bytes = i % 3 === 0 ? noise.subarray(0, i * 7) : Buffer.concat([text.subarray(i), Buffer.from([i])]);
      const raw = deflateRawSync(bytes);
      expect(inflater.inflate(raw, bytes.length).equals(bytes)).toBe(true);
    }
  });

  it('answers as the one-shot inflate for faulty entries, and inflates the next one intact', () => {
    const raw = deflateRawSync(text);
    const damaged = Buffer.from(raw);
    damaged.writeUInt8(damaged.readUInt8(10) ^ 0xff, 10);
    const cases: Array<[Buffer, number]> = [
      [raw, text.length - 1], // longer than declared
      [raw, text.length + 5], // shorter than declared
      [raw.subarray(0, raw.length - 4), text.length], // truncated stream
      [damaged, text.length], // undecodable data
      [Buffer.from([0xff, 0xff, 0xff]), 10], // not deflate at all
      [raw, 4 << 20], // a declared size too large to allocate ahead
    ];
    for (const [input, size] of cases) {
      const expected = oneShot(input, size);
      const got = reused(input, size);
      if (typeof expected === 'string') expect(got).toBe(expected);
      else expect(Buffer.isBuffer(got) && got.equals(expected)).toBe(true);
      expect(inflater.inflate(raw, text.length).equals(text)).toBe(true);
    }
  });

  it('inflates an empty entry', () => {
    expect(inflater.inflate(deflateRawSync(Buffer.alloc(0)), 0).length).toBe(0);
  });
});
